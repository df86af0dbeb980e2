import { COMMAND_MAX_CHARS, judgeCommand } from '../../src/tools/command/commandPolicy';

/**
 * The command rules' judge on the longest commands it parses (just under COMMAND_MAX_CHARS),
 * each shaped to make it work hardest: many parts, strings run as code nested three deep, data
 * it reads again as code (the latent scan under deny rules), wrappers, assignments. For
 * `npm run bench` (`node out/test/bench/commandPolicy.js`): prints JSON, times are medians.
 */
const REPEATS = 5;
const POLICY = { allowed: ['ls', 'echo', 'git status', 'cat', '/^npx tsc( |$)/'], denied: ['rm', 'curl', '/^npm publish/'] };

function fill(unit: string, prefix = '', suffix = ''): string {
  const room = COMMAND_MAX_CHARS - prefix.length - suffix.length;
  return prefix + unit.repeat(Math.floor(room / unit.length)) + suffix;
}

const SHAPES: Record<string, string> = {
  'one long word': fill('a', 'echo '),
  'simple commands (ls;)': fill('ls; '),
  pipelines: fill('cat f | ', '', 'ls'),
  'wrappers (nice timeout env)': fill('nice -n 5 timeout -s KILL 5 env -u X ls; '),
  'assignments in front': fill('GIT_CONFIG_VALUE_0=ls LANG=C ls; '),
  'prompt expansions (${x@P})': fill('"${x@P}" ', 'echo '),
  'arithmetic + latent data (deny scan)': fill(`x='a[$(ls)]'; echo $((x)); `),
  'latent words, one trigger': fill(`'$(echo a)' `, 'echo $((n)) '),
  'eval nested three deep': fill(`eval "eval 'eval ls'"; `),
  "bash -c strings": fill(`bash -c 'ls; echo a'; `),
  'interpreters inline': fill(`python3 -c 'print(1)'; `),
  'substitutions $(…)': fill('$(ls) ', 'echo '),
  'here-documents': fill('cat <<E\nx $(ls)\nE\n'),
  'deep nesting': `echo ${'$('.repeat(250)}ls${')'.repeat(250)}`,
  'find -exec': fill('find . -name x -exec ls {} \\; '),
  'regex rules on long parts': fill('npx tsc --noEmit a ', '', ''),
};

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

const rows: { shape: string; chars: number; ms: number; parts: number; verdict: string }[] = [];
for (const [shape, command] of Object.entries(SHAPES)) {
  const times: number[] = [];
  let last = judgeCommand(command, POLICY);
  for (let i = 0; i < REPEATS; i++) {
    const started = performance.now();
    last = judgeCommand(command, POLICY);
    times.push(performance.now() - started);
  }
  rows.push({ shape, chars: command.length, ms: median(times), parts: last.parts.length, verdict: last.verdict });
}
const huge = `ls ${'a'.repeat(1_000_000)}`;
const started = performance.now();
const refused = judgeCommand(huge, POLICY);
const hugeMs = performance.now() - started;
console.log(JSON.stringify({ maxChars: COMMAND_MAX_CHARS, rows, worstMs: Math.max(...rows.map((r) => r.ms)), oneMegabyte: { ms: hugeMs, verdict: refused.verdict } }));
