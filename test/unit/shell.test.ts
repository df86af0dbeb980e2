import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { LIMITS } from '../../src/tools/manifest';
import { ISOLATION_OVERRIDE_VARIABLE, processIsolation } from '../../src/tools/sandbox/processIsolation';
import { parseStat, readProcess, stillSame } from '../../src/tools/sandbox/processTable';
import type { ToolRegistry, ToolRunReport } from '../../src/tools/registry';
import type { SandboxSetting } from '../../src/tools/types';
import { sandboxAvailability } from '../../src/tools/sandbox/sandboxAvailability';
import { HeadTailBuffer, runCommand } from '../../src/tools/shell';
import { toRecord } from '../../src/tools/toolCallLog';
import { whyAsked } from '../../src/tools/askWording';
import { waitFor } from '../support/waitFor';
import { contextFor, TempWorkspace, type TestContext } from '../support/workspace';

/**
 * Host pids of the living processes whose command line holds `needle` (Linux). Inside a PID
 * namespace `$!` is a namespace pid, so tests find their processes by a unique `sleep` duration.
 */
async function pidsWithCommandLine(needle: string): Promise<number[]> {
  const entries = (await fs.readdir('/proc')).filter((e) => /^\d+$/.test(e) && Number(e) !== process.pid);
  const hits = await Promise.all(
    entries.map(async (e) => {
      const cmdline = (await fs.readFile(`/proc/${e}/cmdline`, 'latin1').catch(() => '')).split('\0').join(' ');
      const row = await readProcess(Number(e));
      return cmdline.includes(needle) && row && !row.zombie ? Number(e) : undefined;
    }),
  );
  return hits.filter((pid): pid is number => pid !== undefined);
}

/** Host pids of the `sleep <seconds>` processes themselves (not the shells whose command line mentions them). */
async function sleepers(seconds: string): Promise<number[]> {
  const pids = await pidsWithCommandLine(`sleep ${seconds}`);
  const lines = await Promise.all(pids.map((p) => fs.readFile(`/proc/${p}/cmdline`, 'latin1').catch(() => '')));
  return pids.filter((_, i) => lines[i].startsWith(`sleep\0${seconds}`));
}

function uniqueSeconds(): string {
  return `986.${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}${process.pid}`;
}

const linuxOnly = process.platform === 'linux' ? it : it.skip;

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
    assert.match(result, /^Exit code: 0 \(\d+\.\d s\)( · [^\n]+)?\n\n/);
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

  linuxOnly('kills the whole process tree on timeout', async () => {
    const seconds = uniqueSeconds();
    const started = Date.now();
    const running = registry.execute('run_bash', {
      command: `sleep ${seconds} & (setsid sleep ${seconds} &); echo started; wait`,
      timeoutSeconds: 1,
    });
    const seen = await waitFor(async () => ((await sleepers(seconds)).length >= 2 ? pidsWithCommandLine(seconds) : undefined), 'both sleepers', 5000);
    const result = await running;
    assert.match(result, /^Timed out after 1 s; the command and its child processes were killed/);
    assert.match(result, /started/);
    assert.ok(Date.now() - started < 8000);
    await waitFor(async () => (await pidsWithCommandLine(seconds)).length === 0, 'no sleeper left', 3000);
    // A process being killed has no command line left before it is a zombie: wait for each to end.
    const living = async () => (await Promise.all(seen.map(async (pid) => ((await readProcess(pid))?.zombie ?? true ? undefined : pid)))).filter((pid) => pid !== undefined);
    let left: (number | undefined)[] = [];
    await waitFor(async () => (left = await living()).length === 0, 'every process of the tree gone', 3000).catch(() => undefined);
    assert.deepEqual(left, [], 'these pids survived');
  });

  linuxOnly('kills the process tree when aborted', async () => {
    const seconds = uniqueSeconds();
    const controller = new AbortController();
    const running = registry.execute('run_bash', { command: `sleep ${seconds} & wait` }, { signal: controller.signal });
    await waitFor(async () => (await sleepers(seconds)).length > 0, 'the sleeper', 5000);
    controller.abort();
    assert.match(await running, /^Stopped/);
    await waitFor(async () => (await pidsWithCommandLine(seconds)).length === 0, 'no sleeper left', 3000);
  });

  it('does not start when already aborted', async () => {
    const controller = new AbortController();
    controller.abort(new Error('cancelled'));
    const result = await registry.execute('run_bash', { command: 'touch ran.txt' }, { signal: controller.signal });
    assert.match(result, /stopped before it started|cancelled/);
    assert.equal(await ws.exists('ran.txt'), false);
  });

  it('keeps the head and tail of long output with a notice', async () => {
    const result = await registry.execute('run_bash', { command: 'for i in $(seq 1 20000); do echo "row $i"; done' });
    assert.ok(result.length < LIMITS.bashOutputMaxChars + 300, `${result.length}`);
    assert.match(result, /row 1\n/);
    assert.match(result, /row 20000$/);
    assert.match(result, /characters of output left out/);
  });

  linuxOnly('returns when bash exits even if a background job holds the output open', async () => {
    const seconds = uniqueSeconds();
    const started = Date.now();
    const result = await registry.execute('run_bash', { command: `sleep ${seconds} & echo done` });
    assert.match(result, /^Exit code: 0/);
    assert.match(result, /done/);
    assert.ok(Date.now() - started < 5000);
    await waitFor(async () => (await pidsWithCommandLine(seconds)).length === 0, 'the background job stopped', 3000);
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

describe('run_bash: how a call ran, as data', () => {
  let ws: TempWorkspace;
  afterEach(() => ws?.dispose());

  /** `true` through the registry, a person saying yes; what they were asked, the result and its log record. */
  async function runTrue(sandbox: SandboxSetting) {
    ws = await TempWorkspace.create({});
    const ctx = contextFor(ws, { answer: true, sandbox });
    const registry = createDefaultToolRegistry(ctx);
    registry.enable('run_bash');
    const reports: ToolRunReport[] = [];
    registry.onDidRun((report) => reports.push(report));
    const result = await registry.run('run_bash', { command: 'true' });
    return { ctx, result, record: toRecord(reports[0], 'chat-1') };
  }

  it('tells the person asked, the result and the call log whether the command is sandboxed and with what network', async function () {
    const availability = await sandboxAvailability();
    if (!availability.available) {
      console.log(`      no sandbox here, skipped: ${availability.detail}`);
      this.skip();
    }
    const { ctx, result, record } = await runTrue({ mode: 'auto', network: 'off' });
    assert.equal(result.status, 'ok', result.text);
    assert.equal(ctx.confirmations[0]?.containment, 'sandboxed, network off');
    assert.match(whyAsked(ctx.confirmations[0]), /runs sandboxed, network off: it can change files only in this workspace/);
    assert.equal(result.containment, 'sandboxed, network off');
    assert.equal(record.containment, 'sandboxed, network off');
  });

  it('says so when the sandbox is off: nothing in the question, "not sandboxed" in the result and the log', async () => {
    const { ctx, result, record } = await runTrue({ mode: 'off', network: 'off' });
    assert.equal(result.status, 'ok', result.text);
    assert.equal(ctx.confirmations[0]?.containment, undefined);
    assert.match(whyAsked(ctx.confirmations[0]), /can do anything your account can/);
    assert.equal(result.containment, 'not sandboxed (toolbelt.sandbox.mode is "off")');
    assert.equal(record.containment, result.containment);
  });

  it('leaves the file tools without one: they never leave the process', async () => {
    ws = await TempWorkspace.create({ 'a.txt': 'a' });
    const registry = createDefaultToolRegistry(contextFor(ws));
    const result = await registry.run('read_file', { path: 'a.txt' });
    assert.equal(result.status, 'ok');
    assert.equal(result.containment, undefined);
  });
});

describe('run_bash process isolation', () => {
  const saved = process.env[ISOLATION_OVERRIDE_VARIABLE];
  afterEach(() => {
    if (saved === undefined) delete process.env[ISOLATION_OVERRIDE_VARIABLE];
    else process.env[ISOLATION_OVERRIDE_VARIABLE] = saved;
  });

  it('says which mechanism it uses, and detects it once', async () => {
    const first = await processIsolation();
    assert.ok(['pid-namespace', 'process-group'].includes(first.kind));
    assert.ok(first.detail.length > 10, first.detail);
    assert.equal(await processIsolation(), first);
    if (process.platform !== 'linux') assert.equal(first.kind, 'process-group');
  });

  it('can be forced to the process-group fallback', async () => {
    process.env[ISOLATION_OVERRIDE_VARIABLE] = 'process-group';
    assert.equal((await processIsolation()).kind, 'process-group');
    assert.match((await processIsolation()).detail, /forced/);
  });

  it('throws (not returns) when bash cannot be started', async () => {
    await processIsolation();
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent-toolbelt-bin';
    try {
      await assert.rejects(runCommand('true', process.cwd(), 5000), /Could not start bash: .*ENOENT/);
    } finally {
      process.env.PATH = path;
    }
  });

  it('surfaces the failure to start as an error result of run_bash', async () => {
    const ws = await TempWorkspace.create();
    try {
      // Without the sandbox: inside it, bwrap starts and reports that it cannot find bash itself.
      const registry = createDefaultToolRegistry(contextFor(ws, { answer: true, sandbox: { mode: 'off', network: 'off' } }));
      registry.enable('run_bash');
      await processIsolation();
      const path = process.env.PATH;
      process.env.PATH = '/nonexistent-toolbelt-bin';
      const result = await registry.execute('run_bash', { command: 'touch ran.txt' }).finally(() => (process.env.PATH = path));
      assert.match(result, /^Error executing run_bash: Could not start bash: /);
      assert.equal(await ws.exists('ran.txt'), false);
    } finally {
      await ws.dispose();
    }
  });

  linuxOnly('the fallback remembers a child that detached after it was seen, and kills it', async () => {
    const seconds = uniqueSeconds();
    // The middle shell leaves after a second (time for the 250 ms watch to see its child), so the
    // sleeper is re-parented, in its own session, without the marker, when the timeout hits.
    const command = `bash -c 'setsid env -i sleep ${seconds} & sleep 1' & wait; sleep 30`;
    const running = runCommand(command, process.cwd(), 3000, undefined, { isolation: 'process-group' });
    const [sleeper] = await waitFor(async () => ((await sleepers(seconds)).length ? sleepers(seconds) : undefined), 'the sleeper', 5000);
    const parent = (await readProcess(sleeper))!.ppid;
    await waitFor(async () => (await readProcess(sleeper))?.ppid !== parent, 'the sleeper re-parented', 5000);
    assert.match(await running, /^Timed out after 3 s/);
    await waitFor(async () => !(await readProcess(sleeper)) || (await readProcess(sleeper))!.zombie, 'the re-parented sleeper killed', 3000);
  });
});

describe('process table', () => {
  it('reads /proc/<pid>/stat even when the command name holds spaces and parentheses', () => {
    const stat = '4242 (a) b (c)) S 17 4242 4240 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 987654 0 0';
    assert.deepEqual(parseStat(stat), { pid: 4242, ppid: 17, pgid: 4242, sid: 4240, start: 987654, zombie: false });
  });

  linuxOnly('tells a living process apart from a later one reusing its pid (start time)', async () => {
    const me = (await readProcess(process.pid))!;
    assert.equal(await stillSame(me), true);
    assert.equal(await stillSame({ ...me, start: me.start! + 1 }), false);
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
