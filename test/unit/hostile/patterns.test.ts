import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createDefaultToolRegistry } from '../../../src/tools/factory';
import type { ToolRegistry } from '../../../src/tools/registry';
import { fallbackSearchBudget, liveSearchWorkers } from '../../../src/tools/searchInWorker';
import { bundledRipgrep, contextFor, TempWorkspace } from '../../support/workspace';

/**
 * Hostile patterns from the model (globs, regexes) and from the workspace (exclude globs,
 * .gitignore rules) must never freeze the extension host. Each call is measured with
 * monitorEventLoopDelay: catastrophic backtracking on the main thread stalls it for many seconds,
 * so a generous bound catches it without making this a speed test.
 */
const STALL_BOUND_MS = 1000;
/** The plain-Node budget where the pattern is expected to backtrack, and where it is not (a loaded machine). */
const TEST_BUDGET_MS = 1500;
const VALID_BUDGET_MS = 15_000;
const LONG = 'a'.repeat(200);
/** A clear refusal or budget message, never a crash or a hang. */
const CLEAR_ERROR = /^Error executing search_(files|text): .*(took too long|stopped after|not supported|at most|too large|Invalid|unsupported|not allowed|exceed)/s;

interface Measured {
  text: string;
  stallMs: number;
}

async function measured(run: () => Promise<string>): Promise<Measured> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  try {
    const text = await run();
    // One more turn, so a stall at the very end is recorded.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { text, stallMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}

/** ripgrep processes this test process started and that have not exited (Linux /proc). */
function rgChildren(): Promise<number[]> {
  return childPids('rg');
}

/** Child processes of this test process (named `name`, when given) that have not exited. */
async function childPids(name?: string): Promise<number[]> {
  if (process.platform !== 'linux') return [];
  const pids: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await fs.readFile(`/proc/${entry}/stat`, 'latin1').catch(() => '');
    const close = stat.lastIndexOf(')');
    if (close < 0) continue;
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const [state, ppid] = stat.slice(close + 2).split(' ');
    if ((name === undefined || comm === name) && Number(ppid) === process.pid && state !== 'Z') pids.push(Number(entry));
  }
  return pids;
}

/** Waits until the call has started a worker or an rg process (true), or has ended (false). */
async function untilRunning(call: Promise<unknown>, children = rgChildren): Promise<boolean> {
  let ended = false;
  void call.finally(() => (ended = true));
  const started = Date.now();
  while (!ended && Date.now() - started < 5000) {
    if (liveSearchWorkers() > 0 || (await children()).length > 0) return true;
    await new Promise((resolve) => setImmediate(resolve));
  }
  return false;
}

async function assertNothingLeft(): Promise<void> {
  assert.equal(liveSearchWorkers(), 0, 'a search worker thread is still running');
  assert.deepEqual(await rgChildren(), [], 'an rg process is still running');
}

const HOSTILE_FILES: Record<string, string> = {
  [`${LONG}.txt`]: 'plain\n',
  [`deep/${LONG}.md`]: 'plain\n',
  [`deep/${'ab'.repeat(12)}`]: 'plain\n',
  'deep/abba.txt': 'plain\n',
  'ok.txt': 'aaa\n',
  'needle.txt': 'the needle42 is here\n',
  'long-line.txt': `${'a'.repeat(5000)}!\n${'x'.repeat(5000)}\n`,
};

for (const engine of ['ripgrep', 'node fallback'] as const) {
  describe(`hostile search patterns (${engine})`, () => {
    const withRg = engine === 'ripgrep';
    let ws: TempWorkspace;
    let registry: ToolRegistry;
    const make = (excludeGlobs?: string[]) => createDefaultToolRegistry(contextFor(ws, { rgPath: withRg ? bundledRipgrep() : undefined, excludeGlobs }));
    const savedBudget = fallbackSearchBudget.ms;

    before(async () => {
      ws = await TempWorkspace.create(HOSTILE_FILES);
      registry = make();
      fallbackSearchBudget.ms = TEST_BUDGET_MS;
    });
    after(async () => {
      fallbackSearchBudget.ms = savedBudget;
      await ws.dispose();
    });
    afterEach(assertNothingLeft);

    /** Runs one call; it ends with a result or a clear error, without stalling the event loop. */
    async function hostile(tool: 'search_files' | 'search_text', args: Record<string, unknown>, on = registry, budgetMs = TEST_BUDGET_MS): Promise<string> {
      fallbackSearchBudget.ms = budgetMs;
      const { text, stallMs } = await measured(() => on.execute(tool, args));
      assert.ok(stallMs < STALL_BOUND_MS, `${tool} ${JSON.stringify(args).slice(0, 80)} stalled the event loop for ${stallMs.toFixed(0)} ms`);
      if (text.startsWith('Error')) assert.match(text, CLEAR_ERROR);
      return text;
    }

    /** For patterns that are hostile-looking but cheap: a budget no loaded machine hits. */
    const valid = (tool: 'search_files' | 'search_text', args: Record<string, unknown>) => hostile(tool, args, registry, VALID_BUDGET_MS);

    /** With ripgrep the pattern is matched in linear time: the right answer. Without, an answer or the budget message. */
    function answerOrBudget(text: string, expected: string | RegExp, culprit: RegExp): void {
      if (withRg || !text.startsWith('Error')) {
        if (typeof expected === 'string') assert.equal(text, expected);
        else assert.match(text, expected);
      } else assert.match(text, culprit);
    }

    describe('globs from the model', () => {
      it('nested extglob groups', async () => {
        const text = await hostile('search_files', { pattern: '+(+(a|aa)|+(a|aa))b' });
        answerOrBudget(text, 'No files match "+(+(a|aa)|+(a|aa))b".', /matching the glob "\+\(\+\(a\|aa\)/);
      });

      it('many stars before a missing letter', async () => {
        const pattern = `${'*a'.repeat(12)}*b`;
        const text = await hostile('search_files', { pattern });
        // Only "abab…" has twelve a's with a b after them; the 200 a's of the long names have none.
        answerOrBudget(text, 'deep/' + 'ab'.repeat(12), /matching the glob/);
      });

      it('a long chain of brace groups stays linear (no expansion)', async () => {
        const text = await valid('search_files', { pattern: '{a,b}'.repeat(24) });
        assert.equal(text, `deep/${'ab'.repeat(12)}`);
      });

      it('a huge brace range is refused, not expanded', async () => {
        const before = process.memoryUsage().heapUsed;
        const text = await hostile('search_files', { pattern: 'file{1..100000}.txt' });
        assert.match(text, /brace range \{1\.\.100000\} has 100,000 items/);
        assert.match(await hostile('search_files', { pattern: '{1..600}{1..600}' }), /brace range \{1\.\.600\} has 600 items; at most 1000 are expanded in one glob/);
        assert.ok(process.memoryUsage().heapUsed - before < 50 * 1024 * 1024, 'the range was expanded in memory');
      });

      it('a negated extglob and an over-long glob get clear errors', async () => {
        assert.match(await hostile('search_files', { pattern: '!(a|b)' }), /Negated extglobs "!\(…\)" are not supported/);
        assert.match(await hostile('search_files', { pattern: '*'.repeat(5000) }), /at most 4000 are accepted/);
      });

      it('hostile-but-valid extglob finds the right files', async () => {
        assert.equal(await valid('search_files', { pattern: '**/+(a|b).txt' }), `${LONG}.txt\ndeep/abba.txt`);
        assert.equal(await valid('search_files', { pattern: `**/${'a'.repeat(10)}*.md` }), `deep/${LONG}.md`);
      });

      it('a hostile glob argument of search_text', async () => {
        const text = await hostile('search_text', { pattern: 'plain', glob: `${'*a'.repeat(12)}*.zzz` });
        answerOrBudget(text, `No matches for "plain" in files matching "${'*a'.repeat(12)}*.zzz".`, /matching the glob/);
      });
    });

    describe('globs and rules from the workspace', () => {
      it('hostile exclude globs (files.exclude / search.exclude)', async () => {
        const excluding = make([`**/${'*a'.repeat(12)}*b`, '+(+(a|aa)|+(a|aa))c']);
        const text = await hostile('search_files', { pattern: '*.txt' }, excluding);
        answerOrBudget(text, [`${LONG}.txt`, 'deep/abba.txt', 'long-line.txt', 'needle.txt', 'ok.txt'].join('\n'), /exclude globs/);
      });

      it('a hostile .gitignore rule', async () => {
        await ws.write({ 'gi/.gitignore': `${'*a'.repeat(14)}*b\n`, [`gi/${LONG}`]: 'x\n', 'gi/keep.me': 'x\n' });
        try {
          const text = await hostile('search_files', { pattern: 'gi/*' });
          answerOrBudget(text, `gi/.gitignore\ngi/${LONG}\ngi/keep.me`, /\.gitignore/);
        } finally {
          await fs.rm(ws.path('gi'), { recursive: true });
        }
      });
    });

    describe('regexes from the model', () => {
      it('(a+)+$ on a long line of a', async () => {
        const text = await hostile('search_text', { pattern: '(a+)+$', isRegex: true });
        answerOrBudget(text, 'ok.txt:1: aaa', /the regex "\(a\+\)\+\$" took too long/);
      });

      it('(x+x+)+y on a long line of x', async () => {
        const text = await hostile('search_text', { pattern: '(x+x+)+y', isRegex: true });
        answerOrBudget(text, 'No matches for regex "(x+x+)+y".', /took too long/);
      });

      it('^(\\w+\\s?)*$ on a long word with a bad ending', async () => {
        const text = await hostile('search_text', { pattern: '^(\\w+\\s?)*$', isRegex: true });
        answerOrBudget(text, /^needle\.txt:1: the needle42 is here$|ok\.txt:1: aaa/m, /took too long/);
      });

      it('(a|aa)+b alternation blow-up', async () => {
        const text = await hostile('search_text', { pattern: '(a|aa)+b', isRegex: true, caseSensitive: true });
        answerOrBudget(text, 'No matches for regex "(a|aa)+b".', /took too long/);
      });

      it('a regex that compiles to a huge program', async () => {
        const text = await hostile('search_text', { pattern: '((a{1,1000}){1,1000}){1,1000}', isRegex: true });
        if (withRg) assert.match(text, /too large/);
      });

      it('a literal made of regex metacharacters is taken literally', async () => {
        assert.equal(await valid('search_text', { pattern: '(a+)+$' }), 'No matches for "(a+)+$".');
      });

      it('hostile-but-valid regex finds the right line', async () => {
        assert.equal(await valid('search_text', { pattern: 'needle\\d+\\s+is', isRegex: true }), 'needle.txt:1: the needle42 is here');
      });
    });

    describe('Stop and budget leave nothing running', () => {
      it('Stop during a search ends it, and no worker or rg is left', async () => {
        const controller = new AbortController();
        const call = registry.execute('search_text', { pattern: '(a+)+$', isRegex: true }, { signal: controller.signal });
        await untilRunning(call);
        controller.abort();
        const { text, stallMs } = await measured(() => call);
        assert.ok(stallMs < STALL_BOUND_MS, `${stallMs}`);
        if (!withRg) assert.match(text, /^Stopped/);
      });

      if (engine === 'node fallback') {
        it('the budget terminates the worker (its exit is awaited) and names the culprit', async () => {
          const started = Date.now();
          const text = await hostile('search_text', { pattern: '(x+x+)+y', isRegex: true });
          assert.match(text, /the regex "\(x\+x\+\)\+y" took too long/);
          assert.equal(liveSearchWorkers(), 0);
          assert.ok(Date.now() - started < TEST_BUDGET_MS + 3000, 'the worker was not stopped at the budget');
        });
      }
    });
  });
}

describe('hostile search patterns: a ripgrep that never ends', () => {
  it('Stop kills it: the call ends and no child process is left', async () => {
    const ws = await TempWorkspace.create({ 'a.txt': 'x\n' });
    try {
      // Named "rg" and runnable, but it only sleeps: the search is surely running when Stop comes.
      const fakeRg = `${ws.parent}/rg`;
      await fs.writeFile(fakeRg, '#!/bin/sh\nexec sleep 60\n', { mode: 0o755 });
      const registry = createDefaultToolRegistry(contextFor(ws, { rgPath: fakeRg }));
      for (const [tool, args] of [['search_text', { pattern: 'x' }], ['search_files', { pattern: 'src/**/*.ts' }]] as const) {
        const controller = new AbortController();
        const call = registry.execute(tool, args, { signal: controller.signal });
        assert.equal(await untilRunning(call, () => childPids()), true, `${tool} did not start the fake rg`);
        controller.abort();
        const { text, stallMs } = await measured(() => call);
        assert.match(text, /^Stopped/);
        assert.ok(stallMs < STALL_BOUND_MS);
        assert.deepEqual(await childPids(), [], `${tool} left a child process`);
      }
    } finally {
      await ws.dispose();
    }
  });
});
