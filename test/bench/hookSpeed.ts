import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * `toolbelt hook claude-code` per call, as an agent runs it (a new node process, the event on
 * stdin, dist/cli.js handing `hook` to dist/hook.js), beside bare `node -e 0` in the same run,
 * interleaved so load on the machine hits both alike. For `npm run bench -- --only=hook-speed`
 * (`node out/test/bench/hookSpeed.js [PAIRS]`): prints JSON, times in ms.
 */
const ROOT = [path.resolve(__dirname, '..', '..', '..'), path.resolve(__dirname, '..', '..')].find((dir) => existsSync(path.join(dir, 'esbuild.js')))!;
const CLI = path.join(ROOT, 'dist', 'cli.js');
const PAIRS = Number(process.argv[2]) || 30;

const parent = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'toolbelt-hook-bench-')));
const ws = path.join(parent, 'ws');
mkdirSync(path.join(ws, '.vscode'), { recursive: true });
writeFileSync(path.join(ws, '.vscode', 'settings.json'), '{\n  "toolbelt.runBash.deniedCommands": ["rm", "curl"],\n  "toolbelt.runBash.allowedCommands": ["ls", "git status"]\n}\n');
writeFileSync(path.join(ws, 'a.txt'), 'a\n');
const env = { ...process.env, TOOLBELT_STATE_DIR: path.join(parent, 'state'), TOOLBELT_USER_SETTINGS: '' };

const event = (tool: string, input: Record<string, unknown>) =>
  JSON.stringify({ session_id: 'bench', cwd: ws, permission_mode: 'default', hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: 't' });
const CASES: Record<string, { args: string[]; input: string }> = {
  'node -e 0': { args: ['-e', '0'], input: '' },
  'hook: Read a file': { args: [CLI, 'hook', 'claude-code'], input: event('Read', { file_path: path.join(ws, 'a.txt') }) },
  'hook: Bash `rm -rf data` (the command parser loads)': { args: [CLI, 'hook', 'claude-code'], input: event('Bash', { command: 'rm -rf data' }) },
};

function time(args: string[], input: string): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { input, env, cwd: ws, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

const stats = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { medianMs: sorted[Math.floor(sorted.length / 2)], p90Ms: sorted[Math.floor(sorted.length * 0.9)], minMs: sorted[0] };
};

try {
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(CASES).map((name) => [name, []]));
  for (const { args, input } of Object.values(CASES)) time(args, input); // warm the file cache
  for (let i = 0; i < PAIRS; i++) for (const [name, { args, input }] of Object.entries(CASES)) times[name].push(time(args, input));
  const rows = Object.fromEntries(Object.entries(times).map(([name, values]) => [name, stats(values)]));
  const bare = rows['node -e 0'].medianMs;
  console.log(
    JSON.stringify({
      pairs: PAIRS,
      loadAverage: os.loadavg()[0],
      cpus: os.cpus().length,
      rows,
      overOwnNodeMs: Object.fromEntries(Object.entries(rows).filter(([name]) => name !== 'node -e 0').map(([name, row]) => [name, row.medianMs - bare])),
    }),
  );
} finally {
  rmSync(parent, { recursive: true, force: true });
}
