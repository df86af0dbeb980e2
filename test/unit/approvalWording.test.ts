import * as assert from 'node:assert/strict';
import { ApprovalBroker, approvalRecord, approvalScope, decisionRecord } from '../../src/chat/approvals';
import { whyAsked, whyProtected } from '../../src/tools/askWording';
import type { ApprovalView } from '../../src/protocol';
import { createBuiltinTool } from '../../src/tools/factory';
import { BUILTIN_MANIFEST } from '../../src/tools/manifest';
import { ToolRegistry } from '../../src/tools/registry';
import type { ConfirmationRequest, ToolContext } from '../../src/tools/types';
import { FakeScheduler } from '../support/fakeScheduler';

function shownFor(request: ConfirmationRequest): ApprovalView {
  let shown: ApprovalView | undefined;
  void new ApprovalBroker().request(request, (view) => (shown = view));
  assert.ok(shown, 'the card was shown');
  return shown;
}

describe('Approval cards in words', () => {
  it('names exactly what "Allow for this chat" covers, as the broker keys it', () => {
    const command = approvalScope({ tool: 'run_bash', reason: 'destructive', summary: 'Run `ls`', args: { command: 'ls' } });
    assert.equal(command.label, 'Allow this exact command for this chat');
    assert.match(command.detail, /this exact command text, in this chat only; any other command, even one that differs by a space, asks again/);

    // A write that carries content (its question has the proposed text) is allowed whatever the content.
    const proposed = { absolute: '/w/.vscode/settings.json', display: '.vscode/settings.json', content: 'x' };
    const write = approvalScope({ tool: 'write_file', reason: 'protected', summary: 'Write .vscode/settings.json', args: { path: '.vscode/settings.json', content: 'x' }, paths: ['.vscode/settings.json'], proposed });
    assert.equal(write.label, 'Allow writes to ".vscode/settings.json" for this chat');
    assert.equal(write.detail, 'Covers write_file on exactly this path, whatever the content, in this chat only; other paths and other tools still ask.');

    const move = approvalScope({ tool: 'move', reason: 'protected', summary: 'Move', args: {}, paths: ['a', '.git/x'] });
    assert.match(move.detail, /^Covers move on exactly these paths, in this chat only/);

    const other = approvalScope({ tool: 'github/create_issue', reason: 'external', summary: 'Run', args: { b: 1, a: 2 } });
    assert.equal(other.detail, 'Covers github/create_issue with exactly these arguments, in this chat only; any other call asks again.');
  });

  it('says in one line why a path is protected', () => {
    assert.equal(whyProtected('.vscode/settings.json'), '.vscode/ holds workspace settings and tasks that change what tools and commands run.');
    assert.equal(whyProtected('.git/hooks/pre-commit'), '.git/ holds the repository itself and its hooks, which run code on every commit.');
    assert.equal(whyProtected('team.code-workspace'), 'A .code-workspace file holds workspace settings that change what tools and commands run.');
    assert.equal(whyAsked({ tool: 'move', reason: 'protected', paths: ['src/a.ts', 'sub/.VSCODE/tasks.json'] }), `It changes a protected path: ${whyProtected('sub/.VSCODE/tasks.json')}`, 'the protected one of the paths, any case');
    assert.match(whyAsked({ tool: 'run_bash', reason: 'destructive' }), /asks before every command/);
    assert.match(whyAsked({ tool: 'run_bash', reason: 'command' }), /toolbelt\.runBash\.allowedCommands/);
    assert.match(whyAsked({ tool: 'remove', reason: 'destructive' }), /remove asks before every call/);
  });

  it('gives the card the command as text and the proposed file content unescaped', () => {
    const bash = shownFor({ tool: 'run_bash', reason: 'destructive', summary: 'Run `echo "a\u202eb"`', args: { command: 'echo "a\u202eb"' } });
    assert.equal(bash.command, 'echo "a\\u{202E}b"', 'hidden characters shown, not obeyed');
    assert.match(bash.why ?? '', /run_bash asks/);
    assert.match(bash.scopeDetail ?? '', /exact command text/);

    const content = '{\n  "editor.tabSize": 2\n}\n';
    const write = shownFor({
      tool: 'write_file',
      reason: 'protected',
      summary: 'Write .vscode/settings.json',
      args: { path: '.vscode/settings.json', content },
      paths: ['.vscode/settings.json'],
      proposed: { absolute: '/w/.vscode/settings.json', display: '.vscode/settings.json', content },
    });
    assert.deepEqual(write.proposed, { path: '.vscode/settings.json', content, truncated: false });
    assert.equal(write.why, `It changes a protected path: ${whyProtected('.vscode/settings.json')}`);
    assert.equal(write.command, undefined);

    const long = shownFor({ tool: 'write_file', reason: 'protected', summary: 'Write .git/x', args: {}, paths: ['.git/x'], proposed: { absolute: '/w/.git/x', display: '.git/x', content: 'y'.repeat(30_000) } });
    assert.equal(long.proposed?.truncated, true);
    assert.equal(long.proposed?.content.length, 20_000);
  });

  it('records who decided: you in the card, a rule, or nobody (auto)', () => {
    assert.deepEqual(decisionRecord('deny', 5), { outcome: 'denied', by: 'you', at: 5 });
    assert.deepEqual(decisionRecord('allowForChat', 6), { outcome: 'allowedForChat', by: 'you', at: 6 });
    const mine = decisionRecord('allow', 7);
    assert.equal(approvalRecord(mine, 'person', 9), mine, 'the choice made in the card stays');
    assert.deepEqual(approvalRecord(undefined, 'rule', 9), { outcome: 'allowed', by: 'rule', at: 9 });
    assert.deepEqual(approvalRecord(undefined, 'auto', 9), { outcome: 'allowed', by: 'auto', at: 9 });
    assert.equal(approvalRecord(undefined, 'refused', 9), undefined);
    assert.equal(approvalRecord(undefined, undefined, 9), undefined);
  });

  it('times a card by its run: the minutes a person took to decide are not counted, and who decided is reported', async () => {
    const scheduler = new FakeScheduler();
    const registry = new ToolRegistry({ defaultBudgetMs: 10_000, stopGraceMs: 1000, scheduler });
    let decide!: (allowed: boolean) => void;
    let asked!: () => void;
    const wasAsked = new Promise<void>((resolve) => (asked = resolve));
    const context: ToolContext = {
      systemPrompt: '',
      sessionContext: '',
      sessionContextFilePath: 'x.md',
      workspaceRoot: process.cwd(),
      confirm: () => (asked(), new Promise<boolean>((resolve) => (decide = resolve))),
    };
    registry.register(createBuiltinTool(BUILTIN_MANIFEST.find((d) => d.name === 'run_bash')!, context));
    const running = registry.run('run_bash', { command: 'echo never', timeoutSeconds: 1 });
    await wasAsked;
    await scheduler.advance(5 * 60_000);
    decide(false);
    const result = await running;
    assert.equal(result.status, 'refused');
    assert.equal(result.durationMs, 0, 'five minutes of deciding, none of it counted');
    assert.equal(approvalRecord(undefined, result.approvedBy, 1), undefined, 'a refusal reported by the tool is no approval');
  });
});
