import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CheckpointAccess } from '../../../src/cli/stateDir';
import { CallGroups } from '../../../src/tools/undo/callGroups';
import type { ToolCaller } from '../../../src/tools/caller';
import { createDefaultToolRegistry } from '../../../src/tools/factory';
import { contextFor, TempWorkspace } from '../../support/workspace';

/**
 * Another toolbelt process holding the undo records (its pid in the lock file, the process alive)
 * does not make a write wait long and then land silently: the write lands after a bounded wait on
 * an injected clock, and its result says the change cannot be undone. Checked on disk and in the
 * store once the holder is gone.
 */
describe('hostile: a write while another process holds the undo records', () => {
  let ws: TempWorkspace;
  let holder: ChildProcess;
  let stateDir: string;
  let now: number;
  let slept: number;

  beforeEach(async () => {
    ws = await TempWorkspace.create({ 'a.txt': 'original a\n', 'b.txt': 'original b\n' });
    stateDir = path.join(ws.parent, 'state');
    await fs.mkdir(stateDir);
    holder = spawn('sleep', ['600'], { stdio: 'ignore' });
    await fs.writeFile(path.join(stateDir, 'lock'), String(holder.pid));
    now = 0;
    slept = 0;
  });
  afterEach(async () => {
    holder.kill('SIGKILL');
    await ws.dispose();
  });

  /** One call group of one call, the way `toolbelt mcp` runs a tool call. */
  async function writeInGroup(groups: CallGroups, file: string, content: string): Promise<string | undefined> {
    const registry = createDefaultToolRegistry(contextFor(ws));
    const group = groups.begin('mcp:client');
    const caller: ToolCaller = { kind: 'mcp', chatId: 'mcp:client', beforeChange: (targets) => group.beforeChange(targets) };
    try {
      const result = await registry.run('write_file', { path: file, content }, { caller });
      assert.equal(result.status, 'ok', result.text);
      return group.unrecorded();
    } finally {
      await group.end();
    }
  }

  it('lands after the bounded wait, says "this change cannot be undone", and later calls are recorded again', async () => {
    const problems: string[] = [];
    const access = new CheckpointAccess(stateDir, () => [ws.root], {
      timeoutMs: 5_000,
      now: () => now,
      sleep: async (ms) => {
        now += ms;
        slept += ms;
      },
    });
    const groups = new CallGroups(access, (message) => problems.push(message));

    const note = await writeInGroup(groups, 'a.txt', 'agent a\n');
    assert.equal(await ws.read('a.txt'), 'agent a\n', 'the write landed');
    assert.match(note ?? '', new RegExp(`This change cannot be undone: a.txt \\(another toolbelt process \\(pid ${holder.pid}\\) held the undo records`));
    assert.match(problems.join('\n'), /a\.txt was changed without an undo record/);
    assert.ok(slept >= 5_000 && slept < 6_000, `waited ${slept} ms on the injected clock`);

    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    assert.equal(await writeInGroup(groups, 'b.txt', 'agent b\n'), undefined, 'a lock left by a process that is gone does not stop recording');
    const undone = await access.withStore((store) => store.undoLastTurn());
    assert.deepEqual(undone?.restored, ['b.txt']);
    assert.equal(await ws.read('b.txt'), 'original b\n');
    assert.equal(await access.withStore((store) => store.undoLastTurn()), undefined, 'a.txt has no record: nothing pretends otherwise');
    assert.equal(await ws.read('a.txt'), 'agent a\n');
  });
});
