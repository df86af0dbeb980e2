import * as assert from 'node:assert/strict';
import type { ToolCaller } from '../../src/tools/caller';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import type { ToolRegistry } from '../../src/tools/registry';
import type { ConfirmationRequest } from '../../src/tools/types';
import { confirmationCard } from '../../src/vscode/nativeChat/confirmationCard';
import { ExpectedInvocations } from '../../src/vscode/nativeChat/expectedInvocations';
import { afterCard, PendingPlans } from '../../src/vscode/nativeChat/preApproval';
import { availabilityOf, enableHint } from '../../src/vscode/nativeChat/toolAvailability';
import { contextFor, TempWorkspace, type TestContext } from '../support/workspace';

describe("Toolbelt tools for VS Code's chat: the tools' own consent on the card, and the card's answer in the call", () => {
  let ws: TempWorkspace;
  let ctx: TestContext;
  let registry: ToolRegistry;

  beforeEach(async () => {
    ws = await TempWorkspace.create({ 'src/a.ts': 'a', '.env': 'SECRET=1', 'old/x.txt': 'x' });
    ctx = contextFor(ws, { sensitiveGlobs: ['**/.env'] });
    registry = createDefaultToolRegistry(ctx);
    registry.enable('remove');
    registry.enable('run_bash');
  });

  afterEach(async () => {
    await ws.dispose();
  });

  const reasons = async (tool: string, args: Record<string, unknown>, on = registry) => (await on.consent(tool, args)).questions.map((q) => q.reason);
  const card = async (tool: string, args: Record<string, unknown>) => confirmationCard(await registry.consent(tool, args), args, ws.root);

  describe('the card shows what the tool itself would ask', () => {
    it('every remove, naming the path', async () => {
      assert.deepEqual(await reasons('remove', { path: 'old', recursive: true }), ['destructive']);
      assert.match((await card('remove', { path: 'old', recursive: true }))!.message, /Delete directory old and everything in it/);
    });

    it('every run_bash, showing the command whole, even with backticks in it', async () => {
      assert.deepEqual(await reasons('run_bash', { command: 'echo `date` && rm -rf build' }), ['destructive']);
      const shown = (await card('run_bash', { command: 'echo `date` && rm -rf build' }))!;
      assert.ok(shown.message.includes('echo `date` && rm -rf build'));
      assert.match(shown.message, /stopped after 60 s/);
      assert.equal(shown.title, 'Toolbelt: run this command?');
    });

    it('a protected write with the path and content, and not a plain one', async () => {
      assert.deepEqual(await reasons('write_file', { path: '.vscode/settings.json', content: '{"a": 1}' }), ['protected']);
      assert.match((await card('write_file', { path: '.vscode/settings.json', content: '{"a": 1}' }))!.message, /Write \.vscode\/settings\.json[\s\S]*\{"a": 1\}[\s\S]*\.vscode\/ holds workspace settings/);
      assert.equal(await card('write_file', { path: 'src/b.ts', content: 'b' }), undefined);
      assert.deepEqual(await reasons('mkdir', { path: '.git/hooks' }), ['protected']);
      assert.deepEqual(await reasons('move', { source: 'src/a.ts', destination: 'x.code-workspace' }), ['protected']);
    });

    it('every write when the person reviews all writes', async () => {
      const reviewing = createDefaultToolRegistry(contextFor(ws, { writeApprovals: 'always' }));
      assert.deepEqual(await reasons('write_file', { path: 'src/b.ts', content: 'b' }, reviewing), ['write']);
      assert.deepEqual(await reasons('mkdir', { path: 'new' }, reviewing), ['write']);
      assert.deepEqual(await reasons('move', { source: 'src/a.ts', destination: 'src/c.ts' }, reviewing), ['write']);
      // The tool's own handler says so (reviewed: false), not a list of tool names: it writes only its own file.
      assert.deepEqual(await reasons('save_session_context', { reason: 'x' }, reviewing), []);
      const plan = await reviewing.consent('write_file', { path: 'src/b.ts', content: 'new text' });
      assert.equal(plan.questions[0].proposed?.content, 'new text', 'the content to review comes with the question');
    });

    it('a sensitive read; not ordinary reads or read-only tools; a path the tool refuses gets no card but an error', async () => {
      assert.deepEqual(await reasons('read_file', { path: '.env' }), ['sensitive']);
      assert.equal((await card('read_file', { path: '.env' }))!.title, 'Toolbelt: read a file that may hold secrets?');
      assert.deepEqual(await reasons('read_file', { path: 'src/a.ts' }), []);
      assert.deepEqual(await reasons('calculator', { expression: '1' }), []);
      await assert.rejects(registry.consent('write_file', { path: '../outside.txt', content: 'x' }), /outside the workspace/);
    });

    it('a command a deny rule refuses is refused in the plan, with nothing to ask', async () => {
      const ruled = createDefaultToolRegistry(contextFor(ws, { commandPolicy: { allowed: [], denied: ['rm'] } }));
      ruled.enable('run_bash');
      const plan = await ruled.consent('run_bash', { command: 'rm -rf old' });
      assert.match(plan.refusal ?? '', /rm/);
      assert.equal(plan.questions.length, 0);
    });
  });

  describe('afterCard through the registry', () => {
    const caller = (answer: boolean, asked: ConfirmationRequest[]): ToolCaller => ({
      kind: 'test',
      confirm: async (request) => (asked.push(request), answer),
    });

    it("writes a protected path the card confirmed without asking again, recorded as the person's", async () => {
      const args = { path: '.vscode/settings.json', content: '{}' };
      const asked: ConfirmationRequest[] = [];
      const result = await registry.run('write_file', args, { caller: afterCard(caller(false, asked), await registry.consent('write_file', args)) });
      assert.equal(result.status, 'ok', result.text);
      assert.equal(result.approvedBy, 'person');
      assert.equal(await ws.read('.vscode/settings.json'), '{}');
      assert.equal(asked.length, 0, "the caller's own confirm was not asked");
    });

    it("sends what the card did not cover to the caller's confirm, which can refuse it", async () => {
      const asked: ConfirmationRequest[] = [];
      const result = await registry.run('write_file', { path: '.vscode/settings.json', content: '{}' }, { caller: afterCard(caller(false, asked), undefined) });
      assert.equal(result.status, 'refused');
      assert.equal(await ws.exists('.vscode/settings.json'), false);
      assert.deepEqual(asked.map((r) => r.reason), ['protected']);
    });

    it('another call running at the same time keeps its own caller', async () => {
      const args = { path: 'old/x.txt' };
      const plan = await registry.consent('remove', args);
      const otherAsked: ConfirmationRequest[] = [];
      const [inside, outside] = await Promise.all([
        registry.run('remove', args, { caller: afterCard(caller(false, []), plan) }),
        registry.run('write_file', { path: '.git/config', content: 'x' }, { caller: caller(false, otherAsked) }),
      ]);
      assert.equal(inside.status, 'ok', inside.text);
      assert.equal(await ws.exists('old/x.txt'), false);
      assert.equal(outside.status, 'refused');
      assert.deepEqual(otherAsked.map((r) => [r.tool, r.reason]), [['write_file', 'protected']]);
    });

    it('does not let a card for one tool approve another', async () => {
      const plan = await registry.consent('remove', { path: 'old/x.txt' });
      const result = await registry.run('write_file', { path: '.vscode/a.json', content: '{}' }, { caller: afterCard(caller(false, []), plan) });
      assert.equal(result.status, 'refused');
      assert.equal(await ws.exists('.vscode/a.json'), false);
    });
  });

  describe('PendingPlans', () => {
    it('hands a plan to the call with the same input once, whatever the key order, and forgets old ones', async () => {
      let now = 0;
      const pending = new PendingPlans(() => now, 1000);
      const plan = await registry.consent('remove', { path: 'old', recursive: true });
      pending.remember('remove', { path: 'old', recursive: true }, plan);
      assert.equal(pending.take('remove', { path: 'other' }), undefined);
      assert.equal(pending.take('remove', { recursive: true, path: 'old' }), plan);
      assert.equal(pending.take('remove', { recursive: true, path: 'old' }), undefined);
      pending.remember('remove', { path: 'old' }, plan);
      now = 2000;
      assert.equal(pending.take('remove', { path: 'old' }), undefined);
    });
  });

  describe('ExpectedInvocations: the status of an @toolbelt call as data', () => {
    it('hands the caller to the tool that runs the call and the result back, in order for equal calls', () => {
      const expected = new ExpectedInvocations();
      const first: ToolCaller = { kind: 'participant', chatId: 'a' };
      const second: ToolCaller = { kind: 'participant', chatId: 'b' };
      const readFirst = expected.expect('calculator', { expression: '1' }, first);
      const readSecond = expected.expect('calculator', { expression: '1' }, second);
      const claimed = expected.claim('calculator', { expression: '1' });
      assert.equal(claimed?.caller, first);
      claimed!.settle({ text: '1', status: 'ok', durationMs: 1 });
      assert.equal(expected.claim('calculator', { expression: '1' })?.caller, second);
      assert.deepEqual(readFirst(), { text: '1', status: 'ok', durationMs: 1 });
      assert.equal(readSecond(), undefined, 'the second was claimed but not settled: the caller reads no result');
      assert.equal(expected.claim('calculator', { expression: '1' }), undefined, 'nothing is left waiting');
    });

    it('a call the tool never ran (Skip) has no result, and a call from elsewhere claims nothing', () => {
      const expected = new ExpectedInvocations();
      const read = expected.expect('remove', { path: 'x' }, { kind: 'participant' });
      assert.equal(expected.claim('remove', { path: 'y' }), undefined);
      assert.equal(read(), undefined);
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
