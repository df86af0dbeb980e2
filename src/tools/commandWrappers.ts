// Commands that run another command (env, nohup, time, sudo, xargs, find -exec): how command
// rules find the inner command, so they judge what really runs.

/** One word as the shell would see it: its value when literal, its source text otherwise. */
export type ShellWord = { value: string; literal: boolean; raw: string };

/** Variables that change which program runs or what it loads: setting one always asks. */
const SENSITIVE_VARIABLES = new Set([
  'PATH', 'LD_PRELOAD', 'LD_LIBRARY_PATH', 'LD_AUDIT', 'DYLD_INSERT_LIBRARIES', 'DYLD_LIBRARY_PATH', 'BASH_ENV', 'ENV',
  'IFS', 'SHELLOPTS', 'BASHOPTS', 'PROMPT_COMMAND', 'NODE_OPTIONS', 'PYTHONSTARTUP', 'PERL5OPT', 'GIT_SSH_COMMAND', 'GIT_EXEC_PATH',
]);

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
  /** Words to skip after the options (timeout's duration). */
  positional?: number;
  /** Letters that make it look commands up instead of running one (command -v). */
  lookup?: string;
}
export const WRAPPERS: Record<string, WrapperSpec> = {
  env: { transparent: true, flags: 'i0v', withArg: 'uC', longFlags: ['ignore-environment', 'null', 'debug'], longWithArg: ['unset', 'chdir'], assignments: true },
  nohup: { transparent: true },
  time: { transparent: true, flags: 'pvaq', withArg: 'fo', longFlags: ['portability', 'verbose', 'append', 'quiet'], longWithArg: ['format', 'output'] },
  nice: { transparent: true, withArg: 'n', longWithArg: ['adjustment'] },
  timeout: { transparent: true, flags: 'v', withArg: 'sk', longFlags: ['preserve-status', 'foreground', 'verbose'], longWithArg: ['signal', 'kill-after'], positional: 1 },
  stdbuf: { transparent: true, withArg: 'ioe', longWithArg: ['input', 'output', 'error'] },
  command: { transparent: true, flags: 'p', lookup: 'vV' },
  builtin: { transparent: true },
  exec: { transparent: true, flags: 'cl', withArg: 'a' },
  xargs: {
    transparent: true, flags: '0rtpxo', withArg: 'aEdILnPs', optionalArg: 'iel',
    longFlags: ['null', 'no-run-if-empty', 'verbose', 'interactive', 'exit', 'open-tty', 'replace', 'eof', 'max-lines'],
    longWithArg: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
  },
  sudo: {
    transparent: false, flags: 'bEHnPSABk', withArg: 'ugCDpRrtTU',
    longFlags: ['background', 'preserve-env', 'set-home', 'non-interactive', 'preserve-groups', 'stdin', 'askpass', 'bell', 'reset-timestamp'],
    longWithArg: ['user', 'group', 'close-from', 'chdir', 'prompt', 'role', 'type', 'other-user', 'command-timeout'],
  },
  doas: { transparent: false, flags: 'n', withArg: 'u' },
};


/** find's own words are judged apart from each -exec/-ok command it runs. */
export function splitFind(words: ShellWord[], writes: string[]): { own: ShellWord[]; runs: ShellWord[][]; writes: string[] } {
  const own: ShellWord[] = [];
  const runs: ShellWord[][] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i];
    if (word.literal && FIND_WRITES.has(word.value)) writes = [...writes, word.value === '-delete' ? 'the files it finds (-delete)' : String(words[i + 1]?.raw)];
    if (!word.literal || !FIND_EXEC.has(word.value)) {
      own.push(word);
      continue;
    }
    const end = words.findIndex((w, j) => j > i && (w.value === ';' || w.value === '+'));
    const stop = end < 0 ? words.length : end;
    runs.push(words.slice(i + 1, stop).map((w) => (w.value.includes('{}') ? { ...w, literal: false } : w)));
    i = stop;
  }
  return { own, runs, writes };
}

/** The inner command of a wrapper; 'none' when it runs none, 'opaque' when its options are not understood. */
export function unwrap(words: ShellWord[], spec: WrapperSpec, cautions: string[]): ShellWord[] | 'none' | 'opaque' {
  let placeholder: string | undefined;
  let i = 1;
  for (; i < words.length; i++) {
    const { value, literal } = words[i];
    if (!literal) return 'opaque';
    if (value === '--') {
      i++;
      break;
    }
    if (spec.assignments && (value === '-' || /^[A-Za-z_]\w*=/.test(value))) {
      noteSensitive(value.split('=')[0], cautions);
      continue;
    }
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
      if (spec.lookup?.includes(letter)) return 'none';
      if (!spec.flags?.includes(letter)) return 'opaque';
    }
  }
  i += spec.positional ?? 0;
  if (i >= words.length) return 'none';
  const inner = words.slice(i);
  return placeholder ? inner.map((w) => (w.value.includes(placeholder) ? { ...w, literal: false } : w)) : inner;
}

export function noteSensitive(name: string | undefined, cautions: string[]): void {
  if (name && SENSITIVE_VARIABLES.has(name)) cautions.push(`it sets ${name}, which changes what runs`);
}
