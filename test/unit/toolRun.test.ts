import * as assert from 'node:assert/strict';
import { createBuiltinTool } from '../../src/tools/factory';
import { BUILTIN_MANIFEST } from '../../src/tools/manifest';
import { ToolRegistry } from '../../src/tools/registry';
import { ToolRefusedError } from '../../src/tools/toolErrors';
import type { ToolContext } from '../../src/tools/types';
import { FakeScheduler } from '../support/fakeScheduler';
import { FakeTool } from '../support/fakeTools';

/** A promise the test settles by hand, to hold a tool "running". */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('ToolRegistry.run: statuses and budgets', () => {
  let scheduler: FakeScheduler;
  let registry: ToolRegistry;

  beforeEach(() => {
    scheduler = new FakeScheduler();
    registry = new ToolRegistry({ defaultBudgetMs: 10_000, stopGraceMs: 1000, scheduler });
  });

  describe('status comes from how the call ended, not from its wording', () => {
    it('a result that starts with "Error" is still ok', async () => {
      registry.register(new FakeTool('reader', () => 'Error handling in this file is done by callers.'));
      const result = await registry.run('reader', {});
      assert.equal(result.status, 'ok');
      assert.equal(result.text, 'Error handling in this file is done by callers.');
    });

    it('a thrown error is "error" with the contract text', async () => {
      registry.register(new FakeTool('broken', () => Promise.reject(new Error('disk on fire'))));
      assert.deepEqual(await registry.run('broken', {}), { text: 'Error executing broken: disk on fire', status: 'error', durationMs: 0, approvedBy: 'auto' });
    });

    it('a refusal is "refused"', async () => {
      registry.register(new FakeTool('guarded', () => Promise.reject(new ToolRefusedError('outside the workspace'))));
      const result = await registry.run('guarded', {});
      assert.equal(result.status, 'refused');
      assert.equal(result.text, 'Error executing guarded: outside the workspace');
    });

    it('a disabled tool is refused and does not run; an unknown one is an error', async () => {
      const tool = new FakeTool('off');
      registry.register(tool);
      registry.disable('off');
      assert.equal((await registry.run('off', {})).status, 'refused');
      assert.equal(tool.calls.length, 0);
      assert.equal((await registry.run('nobody', {})).status, 'error');
    });

    it('a call stopped before it starts does not run', async () => {
      const tool = new FakeTool('late');
      registry.register(tool);
      const controller = new AbortController();
      controller.abort();
      assert.equal((await registry.run('late', {}, { signal: controller.signal })).status, 'cancelled');
      assert.equal(tool.calls.length, 0);
    });

    it('execute() returns the text of run()', async () => {
      registry.register(new FakeTool('plain', () => 'fine'));
      assert.equal(await registry.execute('plain', {}), 'fine');
    });
  });

  describe('Stop', () => {
    it('a tool that honours its signal ends as "cancelled" with its own text', async () => {
      registry.register(
        new FakeTool('polite', (_args, options) => new Promise((resolve) => options?.signal?.addEventListener('abort', () => resolve('Stopped; cleaned up.')))),
      );
      const controller = new AbortController();
      const running = registry.run('polite', {}, { signal: controller.signal });
      await scheduler.advance(500);
      controller.abort();
      const result = await running;
      assert.equal(result.status, 'cancelled');
      assert.equal(result.text, 'Stopped; cleaned up.');
      assert.equal(scheduler.pending, 0, 'no timer is left behind');
    });

    it('a tool that ignores its signal is left behind after the grace period', async () => {
      const hung = deferred<string>();
      registry.register(new FakeTool('stubborn', () => hung.promise));
      const controller = new AbortController();
      let settled = false;
      const running = registry.run('stubborn', {}, { signal: controller.signal }).finally(() => (settled = true));
      controller.abort();
      await scheduler.advance(999);
      assert.equal(settled, false, 'the tool gets its grace period');
      await scheduler.advance(1);
      const result = await running;
      assert.equal(result.status, 'cancelled');
      assert.match(result.text, /stopped stubborn/);
      hung.resolve('too late');
    });
  });

  describe('wall-clock budget', () => {
    it('aborts the tool when the budget runs out and reports an error', async () => {
      let aborted = false;
      registry.register(
        new FakeTool('slow', (_args, options) => new Promise((resolve) => options?.signal?.addEventListener('abort', () => ((aborted = true), resolve('partial output'))))),
      );
      const running = registry.run('slow', {});
      await scheduler.advance(9_999);
      assert.equal(aborted, false);
      await scheduler.advance(1);
      const result = await running;
      assert.equal(aborted, true);
      assert.equal(result.status, 'error');
      assert.match(result.text, /^Error: slow ran longer than its limit of 10 s and was stopped\.\n\npartial output$/);
      assert.equal(result.durationMs, 10_000);
    });

    it('ends the call within the grace period even when the tool never ends', async () => {
      registry.register(new FakeTool('forever', () => new Promise<string>(() => undefined)));
      const running = registry.run('forever', {});
      await scheduler.advance(10_000 + 1000);
      const result = await running;
      assert.equal(result.status, 'error');
      assert.match(result.text, /ran longer than its limit/);
    });

    it('does not count the time a person takes to approve', async () => {
      const decision = deferred<boolean>();
      const context = { confirm: () => decision.promise } as unknown as ToolContext;
      registry.register(
        new FakeTool('asks', async (_args, options) => {
          const resume = options!.pauseBudget!();
          const approved = await context.confirm!({ tool: 'asks', reason: 'destructive', summary: 'x', args: {} });
          resume();
          return approved ? 'done' : 'declined';
        }),
      );
      const running = registry.run('asks', {});
      await scheduler.advance(60_000);
      decision.resolve(true);
      const result = await running;
      assert.equal(result.status, 'ok');
      assert.equal(result.text, 'done');
      assert.equal(result.durationMs, 0);
    });

    it('builtins pause the budget around their own confirmation', async () => {
      const runBash = BUILTIN_MANIFEST.find((d) => d.name === 'run_bash')!;
      const decision = deferred<boolean>();
      const asked = deferred<void>();
      const context: ToolContext = {
        systemPrompt: '',
        sessionContext: '',
        sessionContextFilePath: 'x.md',
        workspaceRoot: process.cwd(),
        confirm: () => (asked.resolve(), decision.promise),
      };
      registry.register(createBuiltinTool(runBash, context));
      const running = registry.run('run_bash', { command: 'echo never', timeoutSeconds: 1 });
      await asked.promise; // the path checks before it do real I/O
      await scheduler.advance(120_000);
      decision.resolve(false);
      const result = await running;
      assert.equal(result.status, 'refused', result.text);
      assert.match(result.text, /declined/);
    });

    it('run_bash gets its own timeout plus time to stop as its budget', () => {
      const runBash = BUILTIN_MANIFEST.find((d) => d.name === 'run_bash')!;
      const context: ToolContext = { systemPrompt: '', sessionContext: '', sessionContextFilePath: 'x.md', workspaceRoot: process.cwd() };
      const tool = createBuiltinTool(runBash, context);
      assert.equal(tool.budgetMs({ command: 'x', timeoutSeconds: 120 }), 125_000);
      assert.equal(tool.budgetMs({ command: 'x' }), 65_000);
      assert.equal(tool.budgetMs({ command: 'x', timeoutSeconds: 99_999 }), 605_000);
      assert.equal(createBuiltinTool(BUILTIN_MANIFEST[0], context).budgetMs({}), undefined);
    });
  });
});
