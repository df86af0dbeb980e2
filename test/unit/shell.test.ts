import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { LIMITS } from '../../src/tools/manifest';
import type { ToolRegistry } from '../../src/tools/registry';
import { HeadTailBuffer } from '../../src/tools/shell';
import { contextFor, TempWorkspace, type TestContext } from '../support/workspace';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(check: () => Promise<boolean> | boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('run_bash builtin', () => {
  let ws: TempWorkspace;
  let ctx: TestContext;
  let registry: ToolRegistry;
  beforeEach(async () => {
    ws = await TempWorkspace.create({ 'data.txt': 'abc\n' });
    ctx = contextFor(ws, { answer: true });
    registry = createDefaultToolRegistry(ctx);
    registry.enable('run_bash');
  });
  afterEach(() => ws.dispose());

  it('runs in the workspace root and reports the exit code and output', async () => {
    const result = await registry.execute('run_bash', { command: 'pwd; cat data.txt' });
    assert.match(result, /^Exit code: 0 \(\d+\.\d s\)\n\n/);
    assert.ok(result.includes(`${ws.root}\nabc`), result);
  });

  it('reports failure exit codes and stderr', async () => {
    const result = await registry.execute('run_bash', { command: 'echo oops >&2; exit 3' });
    assert.match(result, /^Exit code: 3 /);
    assert.match(result, /oops/);
  });

  it('says when there was no output', async () => {
    assert.match(await registry.execute('run_bash', { command: 'true' }), /\(no output\)$/);
  });

  it('asks before every call and does not run when declined', async () => {
    const declined = contextFor(ws, { answer: false });
    const declining = createDefaultToolRegistry(declined);
    declining.enable('run_bash');
    const result = await declining.execute('run_bash', { command: 'touch ran.txt' });
    assert.match(result, /declined: Run `touch ran.txt`/);
    assert.equal(await ws.exists('ran.txt'), false);
    assert.equal(declined.confirmations[0].reason, 'destructive');
    assert.deepEqual(declined.confirmations[0].args, { command: 'touch ran.txt' });
  });

  it('kills the whole process tree on timeout', async () => {
    const started = Date.now();
    const result = await registry.execute('run_bash', {
      command: 'sleep 300 & echo $! > child.pid; (setsid sleep 300 & echo $! > orphan.pid); echo started; wait',
      timeoutSeconds: 1,
    });
    assert.match(result, /^Timed out after 1 s; the command and its child processes were killed/);
    assert.match(result, /started/);
    assert.ok(Date.now() - started < 8000);
    for (const file of ['child.pid', 'orphan.pid']) {
      const pid = Number(await ws.read(file));
      await waitFor(() => !alive(pid));
    }
  });

  it('kills the process tree when aborted', async () => {
    const controller = new AbortController();
    const running = registry.execute('run_bash', { command: 'sleep 300 & echo $! > child.pid; wait' }, { signal: controller.signal });
    await waitFor(() => ws.exists('child.pid').then(async (e) => e && (await ws.read('child.pid')).trim() !== ''));
    const pid = Number(await ws.read('child.pid'));
    controller.abort();
    assert.match(await running, /^Stopped by the user; the command and its child processes were killed/);
    await waitFor(() => !alive(pid));
  });

  it('does not start when already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const result = await registry.execute('run_bash', { command: 'touch ran.txt' }, { signal: controller.signal });
    assert.match(result, /cancelled/);
    assert.equal(await ws.exists('ran.txt'), false);
  });

  it('keeps the head and tail of long output with a notice', async () => {
    const result = await registry.execute('run_bash', { command: 'for i in $(seq 1 20000); do echo "row $i"; done' });
    assert.ok(result.length < LIMITS.bashOutputMaxChars + 300, `${result.length}`);
    assert.match(result, /row 1\n/);
    assert.match(result, /row 20000$/);
    assert.match(result, /characters of output left out/);
  });

  it('returns when bash exits even if a background job holds the output open', async () => {
    const started = Date.now();
    const result = await registry.execute('run_bash', { command: 'sleep 300 & echo $! > bg.pid; echo done' });
    assert.match(result, /^Exit code: 0/);
    assert.match(result, /done/);
    assert.ok(Date.now() - started < 5000);
    const pid = Number(await ws.read('bg.pid'));
    await waitFor(() => !alive(pid));
  });

  it('keeps all of a large output that is still draining when bash exits', async () => {
    const result = await registry.execute('run_bash', { command: 'head -c 200000 /dev/zero | tr "\\0" "x"; echo; echo END' });
    assert.match(result, /^Exit code: 0/);
    assert.match(result, /END$/);
    assert.doesNotMatch(result, /Background processes/);
  });

  it('closes stdin so commands that read it do not hang', async () => {
    assert.match(await registry.execute('run_bash', { command: 'cat; echo after' }), /^Exit code: 0[\s\S]*after/);
  });

  it('validates timeoutSeconds', async () => {
    assert.match(await registry.execute('run_bash', { command: 'true', timeoutSeconds: 0 }), /"timeoutSeconds" must be ≥ 1/);
    assert.match(await registry.execute('run_bash', { command: 'true', timeoutSeconds: 99999 }), /"timeoutSeconds" must be ≤ 600/);
  });

  it('writes files the model asked for (a real shell, not a simulation)', async () => {
    await registry.execute('run_bash', { command: 'printf "%s" "$((6*7))" > answer.txt' });
    assert.equal(await fs.readFile(ws.path('answer.txt'), 'utf8'), '42');
  });
});

describe('HeadTailBuffer', () => {
  it('keeps everything under budget', () => {
    const buffer = new HeadTailBuffer(20);
    buffer.append('hello ');
    buffer.append('world');
    assert.equal(buffer.toString(), 'hello world');
  });

  it('keeps the first and last halves when over budget', () => {
    const buffer = new HeadTailBuffer(10);
    for (const ch of 'abcdefghijklmnopqrstuvwxyz') buffer.append(ch);
    assert.equal(buffer.toString(), 'abcde\n\n[... 16 characters of output left out ...]\n\nvwxyz');
  });
});
