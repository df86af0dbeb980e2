import * as assert from 'node:assert/strict';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import type { ConfirmationRequest } from '../../src/tools/types';
import { planConfirmation } from '../../src/vscode/nativeChat/confirmationPlan';
import { PendingPlans, runPreApproved, scopedConfirmer } from '../../src/vscode/nativeChat/preApproval';
import { availabilityOf, enableHint } from '../../src/vscode/nativeChat/toolAvailability';
import { contextFor, TempWorkspace, type TestContext } from '../support/workspace';

describe('Toolbelt tools for VS Code\'s chat: confirmation cards and pre-approval', () => {
  let ws: TempWorkspace;
  let ctx: TestContext;

  beforeEach(async () => {
    ws = await TempWorkspace.create({ 'src/a.ts': 'a', '.env': 'SECRET=1', 'old/x.txt': 'x' });
    // The workspace's own confirmer says no: anything it is asked is refused, and recorded.
    ctx = contextFor(ws, { answer: false, sensitiveGlobs: ['**/.env'] });
    // As WorkspaceToolContext.confirm does: a pre-approved scope answers first.
    const own = ctx.confirm!.bind(ctx);
    ctx.confirm = (request: ConfirmationRequest) => (scopedConfirmer() ?? own)(request);
  });

  afterEach(async () => {
    await ws.dispose();
  });

  describe('planConfirmation', () => {
    it('asks for every remove, naming the path', async () => {
      const plan = await planConfirmation('remove', { path: 'old', recursive: true }, ctx);
      assert.deepEqual(plan?.reasons, ['destructive']);
      assert.match(plan!.message, /delete `old` and everything in it/);
    });

    it('asks for every run_bash, showing the command whole, even with backticks in it', async () => {
      const plan = await planConfirmation('run_bash', { command: 'echo `date` && rm -rf build' }, ctx);
      assert.deepEqual(plan?.reasons, ['destructive', 'command']);
      assert.ok(plan!.message.includes('echo `date` && rm -rf build'));
      assert.match(plan!.message, /stopped after 60 s/);
    });

    it('asks for a protected write with the path and content, and not for a plain one', async () => {
      const plan = await planConfirmation('write_file', { path: '.vscode/settings.json', content: '{"a": 1}' }, ctx);
      assert.deepEqual(plan?.reasons, ['protected']);
      assert.match(plan!.message, /create `\.vscode\/settings\.json`[\s\S]*\{"a": 1\}[\s\S]*protected path/);
      assert.equal(await planConfirmation('write_file', { path: 'src/b.ts', content: 'b' }, ctx), undefined);
      assert.equal((await planConfirmation('mkdir', { path: '.git/hooks' }, ctx))?.reasons[0], 'protected');
      assert.equal((await planConfirmation('move', { source: 'src/a.ts', destination: 'x.code-workspace' }, ctx))?.reasons[0], 'protected');
    });

    it('asks for every write when the person reviews all writes', async () => {
      const reviewing = contextFor(ws, { writeApprovals: 'always' });
      assert.deepEqual((await planConfirmation('write_file', { path: 'src/b.ts', content: 'b' }, reviewing))?.reasons, ['write']);
      assert.deepEqual((await planConfirmation('mkdir', { path: 'new' }, reviewing))?.reasons, ['write']);
    });

    it('asks for a sensitive read, and not for ordinary reads, read-only tools or unusable paths', async () => {
      assert.deepEqual((await planConfirmation('read_file', { path: '.env' }, ctx))?.reasons, ['sensitive']);
      assert.equal(await planConfirmation('read_file', { path: 'src/a.ts' }, ctx), undefined);
      assert.equal(await planConfirmation('calculator', { expression: '1' }, ctx), undefined);
      assert.equal(await planConfirmation('write_file', { path: '../outside.txt', content: 'x' }, ctx), undefined);
    });
  });

  describe('runPreApproved through the registry', () => {
    it('writes a protected path the card confirmed without asking again, recorded as the person\'s', async () => {
      const registry = createDefaultToolRegistry(ctx);
      const args = { path: '.vscode/settings.json', content: '{}' };
      const plan = await planConfirmation('write_file', args, ctx);
      const result = await runPreApproved('write_file', plan, async () => false, () => registry.run('write_file', args));
      assert.equal(result.status, 'ok', result.text);
      assert.equal(result.approvedBy, 'person');
      assert.equal(await ws.read('.vscode/settings.json'), '{}');
      assert.equal(ctx.confirmations.length, 0, 'the workspace confirmer was not asked');
    });

    it('sends what the card did not cover to the fallback, which can refuse it', async () => {
      const registry = createDefaultToolRegistry(ctx);
      const asked: ConfirmationRequest[] = [];
      const result = await runPreApproved('write_file', undefined, async (r) => (asked.push(r), false), () =>
        registry.run('write_file', { path: '.vscode/settings.json', content: '{}' }),
      );
      assert.equal(result.status, 'refused');
      assert.equal(await ws.exists('.vscode/settings.json'), false);
      assert.deepEqual(asked.map((r) => r.reason), ['protected']);
    });

    it('leaves calls outside the scope, running at the same time, to the workspace confirmer', async () => {
      const registry = createDefaultToolRegistry(ctx);
      registry.enable('remove');
      const args = { path: 'old/x.txt' };
      const plan = await planConfirmation('remove', args, ctx);
      const [inside, outside] = await Promise.all([
        runPreApproved('remove', plan, async () => false, () => registry.run('remove', args)),
        registry.run('write_file', { path: '.git/config', content: 'x' }),
      ]);
      assert.equal(inside.status, 'ok', inside.text);
      assert.equal(await ws.exists('old/x.txt'), false);
      assert.equal(outside.status, 'refused');
      assert.deepEqual(ctx.confirmations.map((r) => [r.tool, r.reason]), [['write_file', 'protected']]);
    });

    it('does not let a card for one tool approve another', async () => {
      const registry = createDefaultToolRegistry(ctx);
      const plan = await planConfirmation('remove', { path: 'old/x.txt' }, ctx);
      const result = await runPreApproved('write_file', plan, async () => false, () => registry.run('write_file', { path: '.vscode/a.json', content: '{}' }));
      assert.equal(result.status, 'refused');
    });
  });

  describe('PendingPlans', () => {
    it('hands a plan to the call with the same input once, whatever the key order, and forgets old ones', async () => {
      let now = 0;
      const pending = new PendingPlans(() => now, 1000);
      const plan = (await planConfirmation('remove', { path: 'old' }, ctx))!;
      pending.remember('remove', { path: 'old', recursive: true }, plan);
      assert.equal(pending.take('remove', { path: 'other' }), undefined);
      assert.equal(pending.take('remove', { recursive: true, path: 'old' }), plan);
      assert.equal(pending.take('remove', { recursive: true, path: 'old' }), undefined);
      pending.remember('remove', { path: 'old' }, plan);
      now = 2000;
      assert.equal(pending.take('remove', { path: 'old' }), undefined);
    });
  });

  describe('availability', () => {
    it('offers only registered, enabled tools, and write tools only when trusted', () => {
      assert.equal(availabilityOf('read_file', { registered: true, enabled: true, trusted: false }), 'offered');
      assert.equal(availabilityOf('write_file', { registered: true, enabled: true, trusted: false }), 'untrusted');
      assert.equal(availabilityOf('write_file', { registered: true, enabled: false, trusted: true }), 'disabled');
      assert.equal(availabilityOf('mkdir', { registered: false, enabled: false, trusted: true }), 'unregistered');
      assert.equal(availabilityOf('nope', { registered: false, enabled: false, trusted: true }), 'unknown');
    });

    it('tells the model how a person switches a tool on', () => {
      assert.match(enableHint('mkdir', 'unregistered'), /\{"name": "mkdir"\}.*toolbelt\.tools\.registry/);
      assert.match(enableHint('write_file', 'disabled'), /checkbox in the Toolbelt Tools view/);
      assert.match(enableHint('run_bash', 'untrusted'), /trust the workspace/);
    });
  });
});
