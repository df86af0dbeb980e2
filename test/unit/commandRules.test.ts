import * as assert from 'node:assert/strict';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import type { ToolRegistry } from '../../src/tools/registry';
import { DEFAULT_SENSITIVE_GLOBS } from '../../src/tools/sensitiveFiles';
import { buildTrustRules, hashEntries, type TrustRuleValues } from '../../src/tools/trustRules';
import type { CommandPolicy, ConfirmationRequest } from '../../src/tools/types';
import { contextFor, TempWorkspace, type TestContext } from '../support/workspace';

/** run_bash under the person's command rules: judged before anything runs, asked only about what no rule allows. */
describe('run_bash command rules', () => {
  let ws: TempWorkspace;
  beforeEach(async () => {
    ws = await TempWorkspace.create({ 'data.txt': 'abc\n' });
  });
  afterEach(() => ws.dispose());

  function make(commandPolicy: CommandPolicy | undefined, answer?: boolean | ((r: ConfirmationRequest) => boolean)): { ctx: TestContext; registry: ToolRegistry } {
    const ctx = contextFor(ws, { commandPolicy, ...(answer === undefined ? {} : { answer }) });
    const registry = createDefaultToolRegistry(ctx);
    registry.enable('run_bash');
    return { ctx, registry };
  }

  it('refuses a denied command before anything runs, without asking', async () => {
    const { ctx, registry } = make({ allowed: ['touch'], denied: ['rm'] }, true);
    const result = await registry.run('run_bash', { command: 'touch marker && rm data.txt' });
    assert.equal(result.status, 'refused');
    assert.equal(result.approvedBy, 'refused');
    assert.match(result.text, /the command rules \(toolbelt\.runBash\) deny `rm data\.txt`/);
    assert.equal(await ws.exists('marker'), false, 'the allowed part did not run either');
    assert.equal(await ws.exists('data.txt'), true);
    assert.equal(ctx.confirmations.length, 0);
  });

  it('refuses a denied command where nobody can be asked, too', async () => {
    const { registry } = make({ allowed: [], denied: ['/touch/'] });
    const result = await registry.run('run_bash', { command: 'echo hi; touch marker' });
    assert.equal(result.status, 'refused');
    assert.equal(await ws.exists('marker'), false);
  });

  it('finds a denied command inside a substitution', async () => {
    const { ctx, registry } = make({ allowed: ['echo'], denied: ['touch'] }, true);
    const result = await registry.run('run_bash', { command: 'echo "$(touch marker)"' });
    assert.equal(result.status, 'refused');
    assert.equal(await ws.exists('marker'), false);
    assert.equal(ctx.confirmations.length, 0);
  });

  it('runs an allowed command without asking, approved by the rule', async () => {
    const { ctx, registry } = make({ allowed: ['touch', 'cat data.txt'], denied: [] }, false);
    const result = await registry.run('run_bash', { command: 'touch marker && cat data.txt' });
    assert.equal(result.status, 'ok', result.text);
    assert.equal(result.approvedBy, 'rule');
    assert.match(result.text, /^Exit code: 0/);
    assert.equal(await ws.exists('marker'), true);
    assert.equal(ctx.confirmations.length, 0, 'the confirm hook was not called (it would have declined)');
  });

  it('asks about the parts no rule allows, with reason "command", and runs when allowed', async () => {
    const { ctx, registry } = make({ allowed: ['cat'], denied: ['rm'] }, true);
    const result = await registry.run('run_bash', { command: 'cat data.txt | wc -l && touch marker' });
    assert.equal(result.status, 'ok', result.text);
    assert.equal(result.approvedBy, 'person');
    assert.equal(ctx.confirmations.length, 1);
    const [request] = ctx.confirmations;
    assert.equal(request.reason, 'command');
    assert.equal(request.tool, 'run_bash');
    assert.deepEqual(request.parts, ['wc -l', 'touch marker']);
    assert.match(request.summary, /touch marker/);
    assert.equal(await ws.exists('marker'), true);
  });

  it('runs nothing when the person declines', async () => {
    const { ctx, registry } = make({ allowed: ['cat'], denied: [] }, false);
    const result = await registry.run('run_bash', { command: 'cat data.txt; touch marker' });
    assert.equal(result.status, 'refused');
    assert.match(result.text, /declined/);
    assert.equal(ctx.confirmations.length, 1);
    assert.deepEqual(ctx.confirmations[0].parts, ['touch marker']);
    assert.equal(await ws.exists('marker'), false);
  });

  it('says why when the command cannot be understood, and asks', async () => {
    const { ctx, registry } = make({ allowed: ['echo'], denied: [] }, false);
    const result = await registry.run('run_bash', { command: 'echo "unterminated; touch marker' });
    assert.equal(result.status, 'refused');
    assert.equal(ctx.confirmations[0].reason, 'command');
    assert.match(ctx.confirmations[0].summary, /cannot parse|cannot analyse/);
    assert.equal(await ws.exists('marker'), false);
  });

  it('records who approved when an "allow for this chat" rule answered', async () => {
    const ctx = contextFor(ws, { commandPolicy: { allowed: [], denied: [] } });
    ctx.confirm = async (request) => {
      request.decidedBy = 'rule';
      return true;
    };
    const registry = createDefaultToolRegistry(ctx);
    registry.enable('run_bash');
    const result = await registry.run('run_bash', { command: 'touch marker' });
    assert.equal(result.approvedBy, 'rule');
    assert.equal(await ws.exists('marker'), true);
  });

  it('without a confirm hook, a command no rule allows runs (enabling run_bash was the consent)', async () => {
    const { registry } = make({ allowed: ['cat'], denied: ['rm'] });
    const result = await registry.run('run_bash', { command: 'touch marker' });
    assert.equal(result.status, 'ok', result.text);
    assert.equal(await ws.exists('marker'), true);
  });

  it('without a policy, asks as before with reason "destructive"', async () => {
    const { ctx, registry } = make(undefined, true);
    const result = await registry.run('run_bash', { command: 'touch marker' });
    assert.equal(result.status, 'ok');
    assert.equal(ctx.confirmations[0].reason, 'destructive');
    assert.equal(ctx.confirmations[0].parts, undefined);
    assert.equal(await ws.exists('marker'), true);
  });
});

/** How the settings become the rules the tools follow (src/vscode/toolContext.ts reads the settings level by level). */
describe('trust rules from the settings', () => {
  const values = (over: Partial<TrustRuleValues> = {}): TrustRuleValues => ({
    sensitiveFiles: { user: undefined, workspace: undefined },
    allowedCommands: { user: undefined, workspace: undefined },
    deniedCommands: { user: undefined, workspace: undefined },
    ...over,
  });

  it('has no command policy when no rule is set, and the default sensitive globs', () => {
    const rules = buildTrustRules(values(), undefined);
    assert.equal(rules.commandPolicy, undefined);
    assert.deepEqual(rules.sensitiveGlobs, DEFAULT_SENSITIVE_GLOBS);
    assert.deepEqual(rules.problems, []);
    assert.equal(rules.pendingWorkspaceCommands, undefined);
  });

  it('applies the person\'s own entries at once and adds up denied entries of both levels', () => {
    const rules = buildTrustRules(values({
      allowedCommands: { user: ['npm test'], workspace: undefined },
      deniedCommands: { user: ['rm'], workspace: ['git push', 'rm'] },
    }), undefined);
    assert.deepEqual(rules.commandPolicy, { allowed: ['npm test'], denied: ['rm', 'git push'] });
    assert.ok(Object.isFrozen(rules.commandPolicy) && Object.isFrozen(rules.commandPolicy!.allowed));
  });

  it('holds a workspace allow-list back until the person accepted that exact list', () => {
    const workspace = ['make', 'npm run build'];
    const pending = buildTrustRules(values({ allowedCommands: { user: ['ls'], workspace } }), undefined);
    assert.deepEqual(pending.commandPolicy, { allowed: ['ls'], denied: [] });
    assert.deepEqual(pending.pendingWorkspaceCommands, { entries: workspace, hash: hashEntries(workspace) });

    const accepted = buildTrustRules(values({ allowedCommands: { user: ['ls'], workspace } }), hashEntries(workspace));
    assert.deepEqual(accepted.commandPolicy, { allowed: ['ls', 'make', 'npm run build'], denied: [] });
    assert.equal(accepted.pendingWorkspaceCommands, undefined);

    const grown = buildTrustRules(values({ allowedCommands: { user: undefined, workspace: [...workspace, 'curl'] } }), hashEntries(workspace));
    assert.equal(grown.commandPolicy, undefined, 'a longer list is a new list: not accepted');
    assert.deepEqual(grown.pendingWorkspaceCommands?.entries, ['make', 'npm run build', 'curl']);
  });

  it('reports bad entries by level and leaves them out', () => {
    const rules = buildTrustRules(values({
      sensitiveFiles: { user: undefined, workspace: ['secrets/**', 42] },
      allowedCommands: { user: ['/(/'], workspace: 'npm test' },
      deniedCommands: { user: ['rm', ''], workspace: undefined },
    }), undefined);
    assert.deepEqual(rules.sensitiveGlobs, [...DEFAULT_SENSITIVE_GLOBS, 'secrets/**']);
    assert.deepEqual(rules.commandPolicy, { allowed: [], denied: ['rm'] });
    assert.equal(rules.problems.length, 4, rules.problems.join('\n'));
    assert.match(rules.problems[0], /^Workspace settings: toolbelt\.tools\.sensitiveFiles\[1\] is not a glob/);
    assert.match(rules.problems[1], /^User settings: toolbelt\.runBash\.allowedCommands\[0\] "\/\(\/": invalid regular expression/);
    assert.match(rules.problems.join('\n'), /Workspace settings: toolbelt\.runBash\.allowedCommands must be a list of strings/);
  });

  it('sensitive files add up: a level that empties the list or leaves defaults out removes nothing, and the problems say so', () => {
    const nothing = buildTrustRules(values({ sensitiveFiles: { user: undefined, workspace: ['nothing'] } }), undefined);
    assert.deepEqual(nothing.sensitiveGlobs, [...DEFAULT_SENSITIVE_GLOBS, 'nothing']);
    assert.deepEqual(nothing.problems, [], 'a list of new entries only adds: nothing to say');
    const emptied = buildTrustRules(values({ sensitiveFiles: { user: undefined, workspace: [] } }), undefined);
    assert.deepEqual(emptied.sensitiveGlobs, DEFAULT_SENSITIVE_GLOBS);
    assert.match(emptied.problems.join('\n'), /^Workspace settings: toolbelt\.tools\.sensitiveFiles leaves out "\.env", "\.env\.\*", "\*\.pem", "\*\.key" and \d+ more; the list only adds/);
    const trimmed = buildTrustRules(values({ sensitiveFiles: { user: undefined, workspace: DEFAULT_SENSITIVE_GLOBS.filter((glob) => glob !== '.env') } }), undefined);
    assert.ok(trimmed.sensitiveGlobs.includes('.env'));
    assert.match(trimmed.problems.join('\n'), /leaves out "\.env"; the list only adds/);
    const both = buildTrustRules(values({ sensitiveFiles: { user: [...DEFAULT_SENSITIVE_GLOBS, 'mine/**'], workspace: [] } }), undefined);
    assert.deepEqual(both.sensitiveGlobs, [...DEFAULT_SENSITIVE_GLOBS, 'mine/**'], 'the person\'s own entry stays when the workspace sets []');
    assert.equal(both.problems.length, 1, 'only the workspace level left defaults out');
  });
});
