// Commands that run another command (env, nohup, nice, timeout, setsid, sudo, busybox, xargs,
// find -exec): how command rules find the inner command, so they judge what really runs.
import type { ShellWord } from './commandWords';

const FIND_EXEC = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_WRITES = new Set(['-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

export interface WrapperSpec {
  /** A transparent wrapper runs its inner command as is; others (sudo) must be allowed by name. */
  transparent: boolean;
  flags?: string;
  withArg?: string;
  /** Letters whose argument is optional and only ever attached (xargs -i, -e, -l). */
  optionalArg?: string;
  longFlags?: string[];
  longWithArg?: string[];
  assignments?: boolean;
  /** Words to skip after the options (timeout's duration, chrt's priority, flock's lock file). */
  positional?: number;
  /** Letters that make it run no command (command -v, chrt -p, taskset -p). */
  noCommand?: string;
  /** `-10` is an option (nice's old form). */
  numericOption?: boolean;
  /** Options after which the command comes as one string (env -S, flock -c): see commandCode. */
  codeOptions?: string[];
  /** Options and syntax too varied to follow: the inner command is never taken as known. */
  alwaysOpaque?: boolean;
}

const OPAQUE: WrapperSpec = { transparent: false, alwaysOpaque: true };

export const WRAPPERS: Record<string, WrapperSpec> = {
  env: {
    transparent: true, flags: 'i0v', withArg: 'uCP', longFlags: ['ignore-environment', 'null', 'debug'], longWithArg: ['unset', 'chdir'],
    assignments: true, codeOptions: ['-S', '--split-string'],
  },
  nohup: { transparent: true },
  setsid: { transparent: true, flags: 'cfw', longFlags: ['ctty', 'fork', 'wait'] },
  time: { transparent: true, flags: 'pvaq', withArg: 'fo', longFlags: ['portability', 'verbose', 'append', 'quiet'], longWithArg: ['format', 'output'] },
  nice: { transparent: true, withArg: 'n', longWithArg: ['adjustment'], numericOption: true },
  timeout: { transparent: true, flags: 'v', withArg: 'sk', longFlags: ['preserve-status', 'foreground', 'verbose'], longWithArg: ['signal', 'kill-after'], positional: 1 },
  stdbuf: { transparent: true, withArg: 'ioe', longWithArg: ['input', 'output', 'error'] },
  chrt: {
    transparent: true, flags: 'abdfiorRv', withArg: 'TPD', noCommand: 'pm', positional: 1,
    longFlags: ['all-tasks', 'batch', 'deadline', 'fifo', 'idle', 'other', 'rr', 'reset-on-fork', 'verbose'], longWithArg: ['sched-runtime', 'sched-period', 'sched-deadline'],
  },
  ionice: { transparent: true, flags: 't', withArg: 'cn', noCommand: 'pPu', longFlags: ['ignore'], longWithArg: ['class', 'classdata'] },
  taskset: { transparent: true, flags: 'ac', noCommand: 'p', longFlags: ['all-tasks', 'cpu-list'], positional: 1 },
  flock: {
    transparent: true, flags: 'sxunoF', withArg: 'wE', positional: 1, codeOptions: ['-c', '--command'],
    longFlags: ['shared', 'exclusive', 'unlock', 'nonblock', 'close', 'no-fork', 'verbose'], longWithArg: ['timeout', 'conflict-exit-code'],
  },
  command: { transparent: true, flags: 'p', noCommand: 'vV' },
  builtin: { transparent: true },
  exec: { transparent: true, flags: 'cl', withArg: 'a' },
  busybox: { transparent: true },
  toybox: { transparent: true },
  catchsegv: { transparent: true },
  unbuffer: { transparent: true, flags: 'p' },
  fakeroot: { transparent: true, flags: 'uhv', withArg: 'lisb', longFlags: ['unknown-is-real'], longWithArg: ['lib', 'faked'] },
  strace: { transparent: true, flags: 'cCdDfFhiqQrtTvVwxyYzZk', withArg: 'abeEIoOpPsSuUX' },
  ltrace: { transparent: true, flags: 'bcCdfhiLrStTV', withArg: 'aAeEFlnopsuwxDX' },
  xargs: {
    transparent: true, flags: '0rtpxo', withArg: 'aEdILnPs', optionalArg: 'iel',
    longFlags: ['null', 'no-run-if-empty', 'verbose', 'interactive', 'exit', 'open-tty', 'replace', 'eof', 'max-lines'],
    longWithArg: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
  },
  sudo: {
    transparent: false, flags: 'bEHnPSABk', withArg: 'ugCDpRrtTU', assignments: true,
    longFlags: ['background', 'preserve-env', 'set-home', 'non-interactive', 'preserve-groups', 'stdin', 'askpass', 'bell', 'reset-timestamp'],
    longWithArg: ['user', 'group', 'close-from', 'chdir', 'prompt', 'role', 'type', 'other-user', 'command-timeout'],
  },
  doas: { transparent: false, flags: 'n', withArg: 'u' },
  chroot: { transparent: false, longFlags: ['skip-chdir'], longWithArg: ['userspec', 'groups'], positional: 1 },
  // Programs that run a command after options or syntax of their own: a denied word anywhere in them is refused.
  ...Object.fromEntries([
    'unshare', 'nsenter', 'setpriv', 'prlimit', 'numactl', 'systemd-run', 'firejail', 'bwrap', 'sg', 'parallel', 'sem', 'entr',
    'gdb', 'valgrind', 'perf', 'rlwrap', 'torsocks', 'proxychains', 'proxychains4', 'daemonize', 'start-stop-daemon', 'runcon',
    'ssh-agent', 'dbus-launch', 'dbus-run-session', 'xvfb-run', 'hyperfine', 'tsp', 'nq', 'chpst', 'setuidgid', 'envdir', 'softlimit',
  ].map((name) => [name, OPAQUE])),
};

/** find's own words are judged apart from each -exec/-ok command it runs; -delete deletes. */
export function splitFind(words: ShellWord[], writes: string[]): { own: ShellWord[]; runs: ShellWord[][]; writes: string[]; deletes: boolean } {
  const own: ShellWord[] = [];
  const runs: ShellWord[][] = [];
  let deletes = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word.literal && FIND_WRITES.has(word.value)) writes = [...writes, word.value === '-delete' ? 'the files it finds (-delete)' : String(words[i + 1]?.raw)];
    deletes ||= word.literal && word.value === '-delete';
    if (!word.literal || !FIND_EXEC.has(word.value)) {
      own.push(word);
      continue;
    }
    const end = words.findIndex((w, j) => j > i && (w.value === ';' || w.value === '+'));
    const stop = end < 0 ? words.length : end;
    runs.push(words.slice(i + 1, stop).map((w) => (w.value.includes('{}') ? { ...w, literal: false } : w)));
    i = stop;
  }
  return { own, runs, writes, deletes };
}

/** The inner command of a wrapper; 'none' when it runs none (or one as a string), 'opaque' when its options are not understood. */
export function unwrap(words: ShellWord[], spec: WrapperSpec, assignments: ShellWord[]): ShellWord[] | 'none' | 'opaque' {
  if (spec.alwaysOpaque) return words.length > 1 ? 'opaque' : 'none';
  let placeholder: string | undefined;
  let i = 1;
  for (; i < words.length; i++) {
    const { value, literal } = words[i];
    // A word only known when it runs, where an option or the command goes: taken as the command (its name unknown).
    if (!literal) break;
    if (value === '--') {
      i++;
      break;
    }
    // env takes any NAME=VALUE, even names bash would not (BASH_FUNC_ls%%=… exports a function).
    if (spec.assignments && (value === '-' || /^[^-=][^=]*=/s.test(value))) {
      if (value !== '-') assignments.push(words[i]);
      continue;
    }
    if (spec.numericOption && /^--?[-+]?\d+$/.test(value)) continue;
    if (spec.codeOptions?.some((option) => value === option || (option.length === 2 && value.startsWith(option)) || value.startsWith(`${option}=`))) return 'none';
    if (value.startsWith('--')) {
      const [name, inline] = value.slice(2).split(/=(.*)/s);
      if (name === 'replace') placeholder = inline ?? '{}';
      if (spec.longWithArg?.includes(name)) i += inline === undefined ? 1 : 0;
      else if (!spec.longFlags?.includes(name)) return 'opaque';
      continue;
    }
    if (!value.startsWith('-') || value === '-') break;
    for (let j = 1; j < value.length; j++) {
      const letter = value[j];
      const rest = value.slice(j + 1);
      if (spec.withArg?.includes(letter) || spec.optionalArg?.includes(letter)) {
        const arg = rest || (spec.withArg?.includes(letter) ? words[++i]?.value : undefined);
        if (letter === 'I' || letter === 'i') placeholder = arg ?? '{}';
        break;
      }
      if (spec.noCommand?.includes(letter)) return 'none';
      if (!spec.flags?.includes(letter)) return 'opaque';
    }
  }
  i += spec.positional ?? 0;
  if (i >= words.length) return 'none';
  // flock FILE -c 'cmd': the command comes as a string after the positional words.
  if (spec.codeOptions?.includes(words[i].value)) return 'none';
  const inner = words.slice(i);
  return placeholder ? inner.map((w) => (w.value.includes(placeholder) ? { ...w, literal: false } : w)) : inner;
}
