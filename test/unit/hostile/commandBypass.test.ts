import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { judgeCommand } from '../../../src/tools/command/commandPolicy';
import { createDefaultToolRegistry } from '../../../src/tools/factory';
import type { CommandPolicy } from '../../../src/tools/types';
import { contextFor, TempWorkspace } from '../../support/workspace';

/**
 * Ways around run_bash's command rules, by class, each checked against real bash: bash really
 * has the effect (a file created or removed), so the case is real; then, through run_bash, the
 * rules ask under allow rules that name every program in it (the person declines: nothing
 * happens) and refuse under deny rules without asking (nothing happens). `underDeny: 'ask'` marks
 * the classes where the code is in a file the rules cannot read: they ask under deny rules too.
 */
interface BypassCase {
  class: string;
  command: string;
  /** The effect bash has: a file it creates, or victim.txt it removes. */
  effect: 'creates pwned' | 'removes victim.txt';
  /** Allow rules naming the programs it runs on its face. */
  allowed: string[];
  underDeny?: 'deny' | 'ask';
  files?: Record<string, string>;
  /** Bash run first in the workspace (git init, a script on disk). */
  setup?: string;
  /** A program bash needs for the effect; without it only the verdicts are checked. */
  needs?: string;
}

const DENIED = ['rm', 'touch'];
const SCRIPT_THAT_TOUCHES = '#!/bin/sh\ntouch pwned\n';

const CASES: BypassCase[] = [
  // Expansions that execute: bash runs the $(…) held in a value.
  { class: 'prompt expansion (@P)', command: `x='$(rm victim.txt)'; : "\${x@P}"`, effect: 'removes victim.txt', allowed: ['ls'] },
  { class: 'prompt expansion (@P)', command: `x='$(rm victim.txt)'; y=\${x@P}`, effect: 'removes victim.txt', allowed: ['ls'] },
  { class: 'prompt expansion (@P)', command: `x='$(rm victim.txt)'; [ -n "\${x@P}" ]`, effect: 'removes victim.txt', allowed: ['['] },
  { class: 'prompt expansion (@P)', command: `x='$(touch pwned)'; ls \${x@P}`, effect: 'creates pwned', allowed: ['ls'] },
  { class: 'arithmetic on a value with a subscript', command: `x='a[$(touch pwned)]'; echo $((x))`, effect: 'creates pwned', allowed: ['echo'] },
  { class: 'arithmetic on a value with a subscript', command: `x='a[$(touch pwned)]'; [[ $x -eq 1 ]]`, effect: 'creates pwned', allowed: ['echo'] },
  { class: 'arithmetic on a value with a subscript', command: `i='a[$(touch pwned)]'; a=(1); echo \${a[i]}`, effect: 'creates pwned', allowed: ['echo'] },
  { class: 'arithmetic on a value with a subscript', command: `x='a[$(touch pwned)]'; echo \${HOME:x}`, effect: 'creates pwned', allowed: ['echo'] },
  { class: 'arithmetic on a value with a subscript', command: `x='a[$(tou'; y='ch pwned)]'; z=$x$y; echo $((z))`, effect: 'creates pwned', allowed: ['echo'] },
  { class: 'arithmetic on a value with a subscript', command: `x=$(printf 'a[\\x24(touch pwned)]'); echo $((x))`, effect: 'creates pwned', allowed: ['echo', 'printf'] },
  { class: 'indirect expansion (${!x})', command: `x='a[$(touch pwned)]'; echo \${!x}`, effect: 'creates pwned', allowed: ['echo'] },
  { class: 'integer and nameref variables', command: `declare -i n; n='a[$(touch pwned)]'`, effect: 'creates pwned', allowed: ['declare'] },
  { class: 'integer and nameref variables', command: `declare -n r='a[$(touch pwned)]'; echo $r`, effect: 'creates pwned', allowed: ['declare', 'echo'] },
  { class: 'names with subscripts (printf -v, read, let)', command: `printf -v 'a[$(touch pwned)]' x`, effect: 'creates pwned', allowed: ['printf'] },
  { class: 'names with subscripts (printf -v, read, let)', command: `read 'a[$(touch pwned)]' <<< x`, effect: 'creates pwned', allowed: ['read'] },
  { class: 'names with subscripts (printf -v, read, let)', command: `x='a[$(touch pwned)]'; let x`, effect: 'creates pwned', allowed: ['let'] },
  { class: 'prompt variables (PS4 with set -x)', command: `PS4='$(touch pwned)'; set -x; :`, effect: 'creates pwned', allowed: ['set'] },
  { class: 'callbacks (mapfile -C, trap)', command: `mapfile -C 'touch pwned #' -c 1 a <<< x`, effect: 'creates pwned', allowed: ['mapfile'] },
  { class: 'callbacks (mapfile -C, trap)', command: `trap 'touch pwned' EXIT`, effect: 'creates pwned', allowed: ['trap'] },
  // Environment in front of an allowed command.
  {
    class: 'environment in front of an allowed command', setup: 'git init -q',
    command: `GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch pwned' git status`, effect: 'creates pwned', allowed: ['git status'],
  },
  { class: 'environment in front of an allowed command', setup: 'git init -q', command: `GIT_CONFIG_PARAMETERS="'core.fsmonitor'='touch pwned'" git status`, effect: 'creates pwned', allowed: ['git status'] },
  {
    class: 'environment in front of an allowed command', setup: 'git init -q',
    command: `env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch pwned' git status`, effect: 'creates pwned', allowed: ['git status'],
  },
  {
    class: 'environment in front of an allowed command', setup: 'git init -q',
    command: `export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch pwned'; git status`, effect: 'creates pwned', allowed: ['export', 'git status'],
  },
  { class: 'environment in front of an allowed command', files: { 'hook.sh': 'touch pwned\n' }, command: 'BASH_ENV=./hook.sh bash -c ls', effect: 'creates pwned', allowed: ['ls'], underDeny: 'ask' },
  {
    class: 'environment in front of an allowed command', files: { 'hook.js': 'require("fs").writeFileSync("pwned", "")\n', 'ok.js': '' },
    command: `NODE_OPTIONS='--require ./hook.js' node ok.js`, effect: 'creates pwned', allowed: ['node ok.js'], underDeny: 'ask',
  },
  {
    class: 'environment in front of an allowed command', files: { 'hook.sh': 'touch pwned\n' },
    command: 'read BASH_ENV <<< ./hook.sh; export BASH_ENV; bash -c ls', effect: 'creates pwned', allowed: ['read', 'export', 'ls'], underDeny: 'ask',
  },
  { class: 'environment in front of an allowed command', command: `env 'BASH_FUNC_ls%%=() { rm victim.txt; }' bash -c ls`, effect: 'removes victim.txt', allowed: ['env', 'ls'] },
  { class: 'environment in front of an allowed command', files: { 'bin/ls': SCRIPT_THAT_TOUCHES }, setup: 'chmod +x bin/ls', command: 'PATH=./bin:$PATH ls', effect: 'creates pwned', allowed: ['ls'], underDeny: 'ask' },
  // Programs that run the command after them.
  { class: 'wrappers with options', command: 'nice -10 rm victim.txt', effect: 'removes victim.txt', allowed: ['nice'] },
  { class: 'wrappers with options', command: 'timeout -s KILL 5 rm victim.txt', effect: 'removes victim.txt', allowed: ['timeout'] },
  { class: 'wrappers with options', command: 'env -u HOME rm victim.txt', effect: 'removes victim.txt', allowed: ['env'] },
  { class: 'wrappers with options', command: `env -S 'rm victim.txt'`, effect: 'removes victim.txt', allowed: ['env'] },
  { class: 'wrappers with options', command: 'setsid -w rm victim.txt', effect: 'removes victim.txt', allowed: ['setsid'] },
  { class: 'wrappers with options', command: 'stdbuf -oL rm victim.txt', effect: 'removes victim.txt', allowed: ['stdbuf'] },
  { class: 'wrappers with options', command: 'chrt -o 0 rm victim.txt', effect: 'removes victim.txt', allowed: ['chrt'] },
  { class: 'wrappers with options', command: 'ionice -c3 rm victim.txt', effect: 'removes victim.txt', allowed: ['ionice'] },
  { class: 'wrappers with options', command: 'taskset -c 0 rm victim.txt', effect: 'removes victim.txt', allowed: ['taskset'] },
  { class: 'wrappers with options', command: 'flock lock rm victim.txt', effect: 'removes victim.txt', allowed: ['flock'] },
  { class: 'wrappers with options', command: `flock lock -c 'rm victim.txt'`, effect: 'removes victim.txt', allowed: ['flock'] },
  { class: 'wrappers with options', command: 'timeout 5 watch -n 0.1 rm victim.txt', effect: 'removes victim.txt', allowed: ['timeout', 'watch'] },
  { class: 'wrappers with options', command: 'busybox rm victim.txt', effect: 'removes victim.txt', allowed: ['busybox'], needs: 'busybox' },
  { class: 'wrappers with options', command: 'command rm victim.txt; exec rm -f victim.txt', effect: 'removes victim.txt', allowed: ['command', 'exec'] },
  { class: 'find and xargs', command: 'find . -name victim.txt -delete', effect: 'removes victim.txt', allowed: ['find'] },
  { class: 'find and xargs', command: 'find . -name victim.txt -exec rm {} +', effect: 'removes victim.txt', allowed: ['find'] },
  { class: 'find and xargs', command: 'xargs rm <<< victim.txt', effect: 'removes victim.txt', allowed: ['xargs'] },
  { class: 'find and xargs', command: 'echo rm victim.txt | xargs env', effect: 'removes victim.txt', allowed: ['echo', 'xargs', 'env'] },
  { class: 'find and xargs', files: { rm: '' }, command: 'find . -name rm -exec env {} victim.txt \\;', effect: 'removes victim.txt', allowed: ['find', 'env'], setup: 'ln -sf /bin/rm rm' },
  // Code run from strings, input and interpreters.
  { class: 'shells and eval', command: `bash -c 'rm victim.txt'`, effect: 'removes victim.txt', allowed: ['bash'] },
  { class: 'shells and eval', command: `echo 'rm victim.txt' | bash`, effect: 'removes victim.txt', allowed: ['echo', 'bash'] },
  { class: 'shells and eval', command: `bash <<'EOF'\nrm victim.txt\nEOF`, effect: 'removes victim.txt', allowed: ['bash'] },
  { class: 'shells and eval', command: `c='rm victim.txt'; eval "$c"`, effect: 'removes victim.txt', allowed: ['eval'] },
  { class: 'shells and eval', command: `source /dev/stdin <<< 'rm victim.txt'`, effect: 'removes victim.txt', allowed: ['source'] },
  { class: 'shells and eval', command: '. <(echo rm victim.txt)', effect: 'removes victim.txt', allowed: ['.', 'echo'] },
  { class: 'interpreters', command: `python3 -c 'import os; os.remove("victim.txt")'`, effect: 'removes victim.txt', allowed: ['python3'], needs: 'python3' },
  { class: 'interpreters', command: `perl -e 'unlink "victim.txt"'`, effect: 'removes victim.txt', allowed: ['perl'], needs: 'perl' },
  { class: 'interpreters', command: `node -e 'require("fs").unlinkSync("victim.txt")'`, effect: 'removes victim.txt', allowed: ['node'] },
  { class: 'interpreters', command: `sed -n '1e rm victim.txt' victim.txt`, effect: 'removes victim.txt', allowed: ['sed'] },
  { class: 'interpreters', command: `awk 'BEGIN { system("rm victim.txt") }'`, effect: 'removes victim.txt', allowed: ['awk'] },
  // Names that run something else than they say.
  { class: 'command names known only when run', command: 'c=rm; $c victim.txt', effect: 'removes victim.txt', allowed: ['ls'] },
  { class: 'command names known only when run', command: '"$(echo rm)" victim.txt', effect: 'removes victim.txt', allowed: ['echo'] },
  { class: 'names redefined (functions, aliases, hash -p)', command: 'ls() { rm victim.txt; }; ls', effect: 'removes victim.txt', allowed: ['ls'] },
  { class: 'names redefined (functions, aliases, hash -p)', command: `shopt -s expand_aliases; alias ls='rm victim.txt'\nls`, effect: 'removes victim.txt', allowed: ['shopt', 'alias', 'ls'] },
  { class: 'names redefined (functions, aliases, hash -p)', command: 'hash -p /bin/rm ls; ls victim.txt', effect: 'removes victim.txt', allowed: ['hash', 'ls'] },
  { class: 'options that run a command', setup: 'git init -q', command: `git -c alias.x='!touch pwned' x`, effect: 'creates pwned', allowed: ['git'] },
  { class: 'options that run a command', setup: 'tar -cf a.tar victim.txt', command: `tar -xf a.tar --to-command='touch pwned'`, effect: 'creates pwned', allowed: ['tar'] },
  // Substitutions anywhere.
  { class: 'substitutions (here-strings, process substitution, coproc)', command: 'cat <<< "$(touch pwned)"', effect: 'creates pwned', allowed: ['cat'] },
  { class: 'substitutions (here-strings, process substitution, coproc)', command: 'cat <(touch pwned)', effect: 'creates pwned', allowed: ['cat'] },
  { class: 'substitutions (here-strings, process substitution, coproc)', command: 'coproc touch pwned; wait', effect: 'creates pwned', allowed: ['wait'] },
  { class: 'writes by redirection', command: 'echo hi > pwned', effect: 'creates pwned', allowed: ['echo'], underDeny: 'ask' },
];

function installed(program: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' }).status === 0;
}

async function workspaceFor(c: BypassCase): Promise<TempWorkspace> {
  const ws = await TempWorkspace.create({ 'victim.txt': 'keep me\n', ...c.files });
  if (c.setup) execFileSync('bash', ['-c', c.setup], { cwd: ws.root, stdio: 'ignore' });
  return ws;
}

async function happened(ws: TempWorkspace, c: BypassCase): Promise<boolean> {
  return c.effect === 'creates pwned' ? ws.exists('pwned') : !(await ws.exists('victim.txt'));
}

describe('hostile commands against the command rules (checked against bash)', function () {
  before(function () {
    if (process.platform !== 'linux') this.skip();
  });

  for (const c of CASES) {
    const label = `[${c.class}] ${JSON.stringify(c.command)}`;
    describe(label, () => {
      it(`bash ${c.effect} when it runs`, async function () {
        if (c.needs && !installed(c.needs)) this.skip();
        const ws = await workspaceFor(c);
        try {
          spawnSync('bash', ['-c', c.command], { cwd: ws.root, stdio: 'ignore', timeout: 10_000, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1' } });
          assert.ok(await happened(ws, c), 'the case is real: bash had the effect');
        } finally {
          await ws.dispose();
        }
      });

      it('asks under allow rules naming its programs (declined: nothing happens)', async () => {
        const ws = await workspaceFor(c);
        try {
          const ctx = contextFor(ws, { commandPolicy: { allowed: c.allowed, denied: [] }, answer: false });
          const registry = createDefaultToolRegistry(ctx);
          registry.enable('run_bash');
          const result = await registry.run('run_bash', { command: c.command });
          assert.equal(result.status, 'refused', result.text);
          assert.equal(ctx.confirmations.length, 1, 'the person was asked');
          assert.equal(ctx.confirmations[0].reason, 'command');
          assert.equal(await happened(ws, c), false);
        } finally {
          await ws.dispose();
        }
      });

      const underDeny = c.underDeny ?? 'deny';
      it(underDeny === 'deny' ? `is refused under deniedCommands ${JSON.stringify(DENIED)}, without asking` : 'asks under deny rules too (the code is in a file)', async () => {
        const ws = await workspaceFor(c);
        try {
          const ctx = contextFor(ws, { commandPolicy: { allowed: c.allowed, denied: DENIED }, answer: underDeny === 'deny' });
          const registry = createDefaultToolRegistry(ctx);
          registry.enable('run_bash');
          const result = await registry.run('run_bash', { command: c.command });
          assert.equal(result.status, 'refused', result.text);
          assert.equal(ctx.confirmations.length, underDeny === 'deny' ? 0 : 1, result.text);
          if (underDeny === 'deny') assert.match(result.text, /the command rules \(toolbelt\.runBash\) deny/);
          assert.equal(await happened(ws, c), false);
        } finally {
          await ws.dispose();
        }
      });
    });
  }

  it('covers every class with at least one case, and at least 60 cases', () => {
    const classes = new Set(CASES.map((c) => c.class));
    assert.ok(CASES.length >= 60, `only ${CASES.length}`);
    assert.ok(classes.size >= 15, [...classes].join(', '));
  });
});

describe('the judge on its own', () => {
  it('an allowed command is still allowed (the classes above are not a blanket refusal)', () => {
    const policy = { allowed: ['git status', 'ls', 'echo', 'python3', 'sed', 'awk', 'node', 'nice'], denied: DENIED };
    const commands = [
      'git status', 'LANG=C ls -la', 'echo $((1 + 2))', 'python3 tool.py --flag', "sed -n 's/a/b/p' f", "awk -F: '{print $1}' f", 'node --version',
      'nice -n 5 ls', 'nice -10 ls', 'timeout -s KILL 5 ls', 'env -u HOME ls', 'setsid -w ls', "bash -c 'ls && git status'",
    ];
    policy.allowed.push('timeout', 'env', 'setsid');
    for (const command of commands) {
      assert.equal(judgeCommand(command, policy).verdict, 'allow', command);
    }
  });

  it('explains how to allow inline code it refuses under deny rules', () => {
    const judgement = judgeCommand(`python3 -c 'print(1)'`, { allowed: ['python3'], denied: ['rm'] });
    assert.equal(judgement.verdict, 'deny');
    assert.match(judgement.parts[0].reason, /"python3" names only `python3`, not the code it runs/);
    assert.match(judgement.parts[0].reason, /put the code in a file and run that, which asks, or add an allowedCommands entry `python3 -c`/);
    assert.equal(judgeCommand(`python3 -c 'print(1)'`, { allowed: ['python3 -c'], denied: ['rm'] }).verdict, 'allow', 'the person can allow it by name');
  });

  it('LD_PRELOAD, PAGER, EDITOR and the like in front of an allowed command ask', () => {
    for (const variable of ['LD_PRELOAD=./x.so', 'LD_LIBRARY_PATH=.', 'PAGER=less', 'EDITOR=vim', 'VISUAL=vim', 'GIT_DIR=/tmp/x', 'GIT_EXEC_PATH=.', 'GIT_SSH_COMMAND=ssh', 'PYTHONSTARTUP=x.py', 'PERL5OPT=-Mx', 'RUBYOPT=-rx', 'ENV=x.sh', 'PROMPT_COMMAND=x', 'SOMETHING=1']) {
      const judgement = judgeCommand(`${variable} ls`, { allowed: ['ls'], denied: [] });
      assert.equal(judgement.verdict, 'ask', variable);
      assert.match(judgement.parts[0].reason, /sets \w+ for the command/);
    }
    assert.equal(judgeCommand('PAGER=rm git log', { allowed: ['git log'], denied: ['rm'] }).verdict, 'deny', 'a command-valued variable naming a denied program');
  });
});

describe('compiled rules follow the settings, not the array', () => {
  let ws: TempWorkspace;
  beforeEach(async () => {
    ws = await TempWorkspace.create({ 'notes.txt': 'NOTES-CONTENT-42\n' });
  });
  afterEach(() => ws.dispose());

  it('command rules changed in place apply at once', async () => {
    const policy = { allowed: ['touch'], denied: [] as string[] };
    const ctx = contextFor(ws, { commandPolicy: policy as CommandPolicy, answer: true });
    const registry = createDefaultToolRegistry(ctx);
    registry.enable('run_bash');
    assert.equal((await registry.run('run_bash', { command: 'touch first' })).status, 'ok');
    policy.allowed.length = 0;
    policy.denied.push('touch');
    const result = await registry.run('run_bash', { command: 'touch second' });
    assert.equal(result.status, 'refused', result.text);
    assert.equal(await ws.exists('first'), true);
    assert.equal(await ws.exists('second'), false, 'the old compiled rule (touch allowed) was not used');
    assert.equal(ctx.confirmations.length, 0);
  });

  it('sensitive-file globs changed in place apply at once', async () => {
    const globs = ['.env'];
    const ctx = contextFor(ws, { sensitiveGlobs: globs });
    const registry = createDefaultToolRegistry(ctx);
    assert.match((await registry.run('read_file', { path: 'notes.txt' })).text, /NOTES-CONTENT-42/);
    globs.push('notes.txt');
    const result = await registry.run('read_file', { path: 'notes.txt' });
    assert.doesNotMatch(result.text, /NOTES-CONTENT-42/, 'the read was refused: nobody can be asked here');
    assert.match(result.text, /may hold secrets/);
  });

  it('a command over 64 KB is not parsed: it asks, even with a denied command in it', async () => {
    const ctx = contextFor(ws, { commandPolicy: { allowed: ['echo'], denied: ['touch'] }, answer: false });
    const registry = createDefaultToolRegistry(ctx);
    registry.enable('run_bash');
    const result = await registry.run('run_bash', { command: `touch big; echo ${'a'.repeat(1_000_000)}` });
    assert.equal(result.status, 'refused');
    assert.equal(ctx.confirmations.length, 1);
    assert.ok(/too long to check \(1,000,016 characters; the rules read at most 65,536\)/.test(ctx.confirmations[0].summary), 'the question says why');
    assert.equal(await ws.exists('big'), false);
  });
});
