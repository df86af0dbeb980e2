import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ApprovalBroker, approvalScope } from '../../src/chat/approvals';
import { revealHiddenCharacters, type ApprovalView } from '../../src/protocol';
import type { ConfirmationRequest } from '../../src/tools/types';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { contextFor, TempWorkspace } from '../support/workspace';

const write = (p: string): ConfirmationRequest => ({ tool: 'write_file', reason: 'protected', summary: `Write ${p}`, args: { path: p, content: 'x' }, paths: [p] });
const bash = (command: string): ConfirmationRequest => ({ tool: 'run_bash', reason: 'destructive', summary: `Run \`${command}\``, args: { command }, paths: [] });
const remove = (p: string, recursive?: boolean): ConfirmationRequest => ({
  tool: 'remove',
  reason: 'destructive',
  summary: `Delete ${p}`,
  args: recursive === undefined ? { path: p } : { path: p, recursive },
  paths: [p],
});

/** Asks once, answers with `decision`, and returns the card that was shown. */
async function decideOnce(broker: ApprovalBroker, request: ConfirmationRequest, decision: 'allow' | 'allowForChat' | 'deny'): Promise<ApprovalView> {
  let shown: ApprovalView | undefined;
  const answer = broker.request(request, (view) => (shown = view));
  assert.ok(shown, 'the card was shown');
  assert.equal(broker.decide(shown.requestId, decision), true);
  assert.equal(await answer, decision !== 'deny');
  return shown;
}

/** Whether the broker would ask a person (true) or answer on its own. */
function asks(broker: ApprovalBroker, request: ConfirmationRequest): boolean {
  let asked = false;
  void broker.request(request, () => (asked = true));
  return asked;
}

describe('Approvals: what "Allow for this chat" covers', () => {
  it('a protected write allowed for the chat covers exactly that path, not another path or another tool', async () => {
    const broker = new ApprovalBroker();
    const view = await decideOnce(broker, write('.vscode/settings.json'), 'allowForChat');
    assert.equal(view.scope, 'Allow writes to ".vscode/settings.json" for this chat');
    assert.equal(broker.isPreApproved(write('.vscode/settings.json')), true);
    assert.equal(broker.isPreApproved(write('.git/hooks/pre-commit')), false, 'another protected path');
    assert.equal(broker.isPreApproved(write('.vscode/tasks.json')), false, 'a sibling path');
    assert.equal(broker.isPreApproved(write('.vscode')), false, 'the parent folder');
    assert.equal(broker.isPreApproved({ ...remove('.vscode/settings.json'), reason: 'protected' }), false, 'another tool on the same path');
    assert.equal(broker.isPreApproved({ ...write('.vscode/settings.json'), tool: 'mkdir' }), false);
    assert.equal(asks(broker, write('.git/hooks/pre-commit')), true);
    broker.denyAll();
  });

  it('run_bash allowed for the chat covers exactly that command text', async () => {
    const broker = new ApprovalBroker();
    const view = await decideOnce(broker, bash('npm test'), 'allowForChat');
    assert.equal(view.scope, 'Allow this exact command for this chat');
    assert.equal(broker.isPreApproved(bash('npm test')), true);
    for (const other of ['npm test; rm -rf ~', 'npm  test', 'npm test ', 'NPM TEST', 'npm run test']) {
      assert.equal(broker.isPreApproved(bash(other)), false, JSON.stringify(other));
    }
    assert.equal(broker.isPreApproved({ ...bash('npm test'), args: { command: 'npm test', timeoutSeconds: 5 } }), true, 'the timeout is not part of what is allowed');
  });

  it('remove allowed for the chat covers that path only, and a recursive delete needs its own approval', async () => {
    const broker = new ApprovalBroker();
    const view = await decideOnce(broker, remove('build/out.txt'), 'allowForChat');
    assert.equal(view.scope, 'Allow deleting "build/out.txt" for this chat');
    assert.equal(broker.isPreApproved(remove('build/out.txt')), true);
    assert.equal(broker.isPreApproved(remove('build')), false);
    assert.equal(broker.isPreApproved(remove('build/out.txt', true)), false);
    const recursive = await decideOnce(broker, remove('build', true), 'allowForChat');
    assert.match(recursive.scope ?? '', /deleting \(recursively\) "build"/);
  });

  it('a move names both paths and covers exactly that pair', async () => {
    const broker = new ApprovalBroker();
    const move = (from: string, to: string): ConfirmationRequest => ({ tool: 'move', reason: 'protected', summary: `Move ${from} to ${to}`, args: { source: from, destination: to }, paths: [from, to] });
    const view = await decideOnce(broker, move('a.json', '.vscode/a.json'), 'allowForChat');
    assert.equal(view.scope, 'Allow moves between ".vscode/a.json" and "a.json" for this chat');
    assert.equal(broker.isPreApproved(move('a.json', '.vscode/a.json')), true);
    assert.equal(broker.isPreApproved(move('b.json', '.vscode/a.json')), false);
    assert.equal(broker.isPreApproved(move('a.json', '.git/config')), false);
  });

  it('a destructive tool without paths covers the same arguments only, in any key order', async () => {
    const broker = new ApprovalBroker();
    const call = (args: Record<string, unknown>): ConfirmationRequest => ({ tool: 'deploy', reason: 'destructive', summary: 'Deploy', args });
    const view = await decideOnce(broker, call({ env: 'prod', force: true }), 'allowForChat');
    assert.equal(view.scope, 'Allow this exact deploy call for this chat');
    assert.equal(broker.isPreApproved(call({ force: true, env: 'prod' })), true);
    assert.equal(broker.isPreApproved(call({ env: 'staging', force: true })), false);
  });

  it('"Allow" once pre-approves nothing', async () => {
    const broker = new ApprovalBroker();
    await decideOnce(broker, bash('ls'), 'allow');
    await decideOnce(broker, write('.git/config'), 'allow');
    assert.equal(broker.isPreApproved(bash('ls')), false);
    assert.equal(broker.isPreApproved(write('.git/config')), false);
  });

  it('reset clears everything allowed for the chat and denies what waits', async () => {
    const broker = new ApprovalBroker();
    await decideOnce(broker, bash('make'), 'allowForChat');
    await decideOnce(broker, write('.vscode/settings.json'), 'allowForChat');
    const waiting = broker.request(bash('make clean'), () => undefined);
    broker.reset();
    assert.equal(await waiting, false);
    assert.deepEqual(broker.waiting, []);
    assert.equal(broker.isPreApproved(bash('make')), false);
    assert.equal(broker.isPreApproved(write('.vscode/settings.json')), false);
  });

  it('stop (denyAll) denies every waiting request and remembers nothing', async () => {
    const broker = new ApprovalBroker();
    const answers = [broker.request(bash('a'), () => undefined), broker.request(write('.git/x'), () => undefined)];
    assert.equal(broker.waiting.length, 2);
    broker.denyAll();
    assert.deepEqual(await Promise.all(answers), [false, false]);
    assert.deepEqual(broker.waiting, []);
    assert.equal(broker.isPreApproved(bash('a')), false);
  });

  it('a late decision for a request that was already decided changes nothing', async () => {
    const broker = new ApprovalBroker();
    const view = await decideOnce(broker, bash('x'), 'deny');
    assert.equal(broker.decide(view.requestId, 'allowForChat'), false);
    assert.equal(broker.isPreApproved(bash('x')), false);
  });

  it('shows hidden and direction-changing characters in the card instead of obeying them', () => {
    const tricky = '.vscode/\u202Enosj.sgnittes\u200B';
    const scope = approvalScope(write(tricky));
    assert.ok(!/[\u202E\u200B]/.test(scope.label));
    assert.match(scope.label, /\\u\{202E\}nosj\.sgnittes\\u\{200B\}/);
    assert.equal(revealHiddenCharacters('plain text\twith a tab\r\n'), 'plain text\twith a tab\r\n');
    assert.equal(revealHiddenCharacters('a\u200Db\uFEFF'), 'a\\u{200D}b\\u{FEFF}');
    assert.equal(approvalScope(write(tricky)).key === approvalScope(write('.vscode/settings.json')).key, false);
  });
});

describe('Approvals through the real write_file tool', () => {
  let ws: TempWorkspace;
  beforeEach(async () => {
    ws = await TempWorkspace.create({ '.vscode/settings.json': '{}', '.git/hooks/.keep': '' });
  });
  afterEach(() => ws.dispose());

  it('allowing .vscode/settings.json for the chat still asks before .git/hooks/pre-commit, and writes only what was allowed', async () => {
    const broker = new ApprovalBroker();
    const ctx = contextFor(ws);
    const shown: ApprovalView[] = [];
    let nextDecision: 'allowForChat' | 'deny' = 'allowForChat';
    ctx.confirm = (request) =>
      broker.request(request, (view) => {
        shown.push(view);
        broker.decide(view.requestId, nextDecision);
      });
    const registry = createDefaultToolRegistry(ctx);
    assert.equal((await registry.run('write_file', { path: '.vscode/settings.json', content: '{"a":1}' })).status, 'ok');
    assert.equal((await registry.run('write_file', { path: '.vscode/settings.json', content: '{"a":2}' })).status, 'ok');
    assert.equal(shown.length, 1, 'the second write to the same path was covered');
    nextDecision = 'deny';
    const hook = await registry.run('write_file', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\nevil\n' });
    assert.equal(shown.length, 2, 'a write to another protected path asked again');
    assert.equal(hook.status, 'refused');
    assert.match(hook.text, /declined/);
    assert.equal(await fs.readFile(path.join(ws.root, '.vscode', 'settings.json'), 'utf8'), '{"a":2}');
    await assert.rejects(fs.access(path.join(ws.root, '.git', 'hooks', 'pre-commit')), 'the hook was not written');
  });
});
