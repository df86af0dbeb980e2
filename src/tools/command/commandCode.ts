// Commands that run code given as text (eval, trap, alias, sh -c, su -c, flock -c, watch, env -S,
// source, interpreters' -c/-e, sed's e, awk's system) or read from their input: what that code is,
// when the command rules can read it, and when they cannot.
import { awkRunsCommands, sedRunsCommands } from './commandScripts';
import { basename, type ShellWord } from './commandWords';
import { unwrap, type WrapperSpec } from './commandWrappers';

/** What feeds a command's standard input, as far as its own redirections tell. */
export type Stdin = { kind: 'text'; text: string } | { kind: 'file' } | { kind: 'unknown' };

export type Code =
  /** Shell code the rules can read: judged command by command. */
  | { kind: 'strings'; runner: string; strings: string[] }
  /** Code the rules cannot read; a rule must name at least `ruleWords` words of the command to allow it. */
  | { kind: 'opaque'; runner: string; reason: string; ruleWords: number }
  /** Code in a file: allowed only by a rule naming at least `ruleWords` words. */
  | { kind: 'file'; ruleWords: number };

export const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'yash', 'fish', 'rbash']);
const STDIN_PATHS = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);

type InterpreterSpec = {
  /** Letters and long names whose argument (attached or next) is code. */
  inline: string;
  inlineLong?: string[];
  withArg?: string;
  withArgLong?: string[];
  /** Letters that take the rest of their word as an optional argument (perl -i.bak, -l0). */
  restArg?: string;
  flags?: string;
  longFlags?: string[];
  /** Letters after which a module, not a script, runs (python -m): code in a file. */
  module?: string;
  /** Letters that only print something and exit (node -v, python -V). */
  info?: string;
};
/** Long options after which an interpreter only prints something and exits. */
const INFO_LONG = new Set(['version', 'help']);
const PYTHON: InterpreterSpec = { inline: 'c', withArg: 'WX', module: 'm', info: 'hV', flags: 'bBdEiIOPqsSuvx', withArgLong: ['check-hash-based-pycs'] };
const NODE: InterpreterSpec = {
  inline: 'ep', inlineLong: ['eval', 'print'], withArg: 'r', info: 'hv', flags: 'ci',
  withArgLong: ['require', 'import', 'loader', 'experimental-loader', 'input-type', 'env-file', 'conditions', 'title', 'redirect-warnings'],
  longFlags: ['inspect', 'inspect-brk', 'trace-warnings', 'no-warnings', 'enable-source-maps', 'expose-gc', 'test', 'watch', 'check', 'interactive',
    'experimental-vm-modules', 'experimental-strip-types', 'no-deprecation', 'trace-deprecation', 'trace-uncaught', 'preserve-symlinks'],
};
const INTERPRETERS: Record<string, InterpreterSpec> = {
  perl: { inline: 'eEMmd', restArg: 'il0FIxCD', info: 'vhV', flags: 'acnpsStTuUwWX' },
  ruby: { inline: 'e', withArg: 'ICrE', restArg: '0lFxWT', info: 'hv', flags: 'acdnpsSwy' },
  node: NODE, nodejs: NODE, bun: { inline: 'ep', inlineLong: ['eval', 'print'] },
  php: { inline: 'rRBE', withArg: 'cdfzt', info: 'hivm', flags: 'lnswaHq' },
  lua: { inline: 'e', withArg: 'l', info: 'v', flags: 'iEW' }, luajit: { inline: 'e', withArg: 'lb', info: 'v', flags: 'iEWjO' },
  Rscript: { inline: 'e' }, julia: { inline: 'eE', inlineLong: ['eval', 'print'] }, osascript: { inline: 'e' },
  tclsh: { inline: '' }, wish: { inline: '' }, irb: { inline: '' },
};
const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk']);
const WATCH: WrapperSpec = {
  transparent: true, flags: 'bcCdegtxpwr', withArg: 'nqs',
  longFlags: ['beep', 'color', 'no-color', 'differences', 'errexit', 'chgexit', 'no-title', 'exec', 'precise', 'no-wrap', 'no-rerun'],
  longWithArg: ['interval', 'equexit', 'shotsdir'],
};

/** The code a command runs from text or its input, or undefined when it runs none that way. */
export function codeOf(words: ShellWord[], stdin: Stdin): Code | undefined {
  const name = words[0].literal ? basename(words[0].value) : '';
  const strings = (at: number, code: ShellWord[]): Code =>
    code.every((w) => w.literal) ? { kind: 'strings', runner: name, strings: [code.map((w) => w.value).join(' ')] }
      : { kind: 'opaque', runner: name, reason: `${name} runs a string that is only known when it runs`, ruleWords: at + code.length };
  switch (name) {
    case 'eval':
      return strings(1, words.slice(1));
    case 'trap': {
      const at = words[1]?.value === '--' ? 2 : 1;
      const action = words[at];
      return action && (at === 2 || !action.value.startsWith('-')) ? strings(at, [action]) : undefined;
    }
    case 'alias': {
      const values = words.slice(1).filter((w) => !w.literal || w.value.includes('='));
      if (values.length === 0) return undefined;
      if (values.some((w) => !w.literal)) return { kind: 'opaque', runner: name, reason: 'alias defines code that is only known when it runs', ruleWords: words.length };
      return { kind: 'strings', runner: name, strings: values.map((w) => w.value.slice(w.value.indexOf('=') + 1)) };
    }
    case 'mapfile': case 'readarray': {
      const found = optionValue(words, ['-C']);
      return found && strings(found.at, [found.value]);
    }
    case 'source': case '.':
      return sourced(words, stdin);
    case 'su': case 'runuser': {
      const found = optionValue(words, ['-c', '--command', '--session-command']);
      return found ? strings(found.at, [found.value]) : fromStdin(name, words, stdin);
    }
    case 'script': {
      const found = optionValue(words, ['-c', '--command']);
      return found ? strings(found.at, [found.value]) : fromStdin(name, words, { kind: 'unknown' });
    }
    case 'flock': {
      const found = optionValue(words, ['-c', '--command']);
      return found && strings(found.at, [found.value]);
    }
    case 'env': {
      const found = optionValue(words, ['-S', '--split-string']);
      return found && strings(found.at, [found.value, ...words.slice(found.at + 1)]);
    }
    case 'sudo':
      // sudo -s / -i without a command: a shell that reads its commands from the input.
      return words.some((w) => /^-[a-zA-Z]*[si]$/.test(w.value)) && !words.slice(1).some((w) => !w.value.startsWith('-')) ? fromStdin(name, words, stdin) : undefined;
    case 'vim': case 'vi': case 'nvim': case 'ex': case 'view': case 'emacs': {
      const at = words.findIndex((w, i) => i > 0 && /^(\+|-c$|--cmd$|-S|--eval$|-eval$|--execute$|-l$|--load$|-batch$|--batch$)/.test(w.value));
      return at > 0 ? { kind: 'opaque', runner: name, reason: `${name} ${words[at].value} runs editor commands, which can start programs`, ruleWords: at + 1 } : undefined;
    }
    case 'watch': {
      const inner = unwrap(words, WATCH, []);
      if (inner === 'none') return undefined;
      if (inner === 'opaque') return { kind: 'opaque', runner: name, reason: 'watch has options the command rules do not know', ruleWords: words.length };
      return strings(words.length - inner.length, inner);
    }
    case 'at': case 'batch':
      if (words.some((w) => /^-[a-zA-Z]*[lrdc]/.test(w.value))) return undefined;
      return words.some((w) => /^-[a-zA-Z]*f/.test(w.value)) ? { kind: 'file', ruleWords: 1 } : fromStdin(name, words, stdin);
    case 'sed':
      return sedCode(words);
    case 'deno':
      return words[1]?.value === 'eval' ? { kind: 'opaque', runner: name, reason: inlineReason('deno eval'), ruleWords: 2 } : undefined;
    case 'pwsh': case 'powershell': {
      const at = words.findIndex((w) => /^-(c|command|e|ec|encodedcommand)$/i.test(w.value));
      return at > 0 ? { kind: 'opaque', runner: name, reason: inlineReason(`${name} ${words[at].value}`), ruleWords: at + 1 } : undefined;
    }
  }
  if (SHELLS.has(name)) return shellCode(name, words, stdin);
  if (AWKS.has(name)) return awkCode(name, words);
  // python3.12, perl5.36, node18: the same interpreter.
  const bare = name.replace(/[\d.]+$/, '');
  const spec = INTERPRETERS[name] ?? INTERPRETERS[bare] ?? (bare === 'python' || bare === 'pypy' ? PYTHON : undefined);
  return spec ? interpreterCode(name, words, stdin, spec) : undefined;
}

function shellCode(name: string, words: ShellWord[], stdin: Stdin): Code {
  let dashC = false;
  let readsStdin = false;
  for (let i = 1; i < words.length; i++) {
    const value = words[i].value;
    if (!words[i].literal) return { kind: 'opaque', runner: name, reason: `${name} runs with words only known when it runs`, ruleWords: words.length };
    if (['-o', '+o', '-O', '+O', '--rcfile', '--init-file'].includes(value)) i++;
    else if (/^[-+][A-Za-z]+$/.test(value)) {
      dashC ||= value.startsWith('-') && value.includes('c');
      readsStdin ||= value.startsWith('-') && value.includes('s');
    } else if (value === '-') readsStdin = true;
    else if (value === '--' || !value.startsWith('--')) {
      const at = value === '--' ? i + 1 : i;
      if (dashC) {
        const code = words[at];
        if (!code) return { kind: 'opaque', runner: name, reason: `${name} -c without a string to run`, ruleWords: words.length };
        return code.literal ? { kind: 'strings', runner: name, strings: [code.value] }
          : { kind: 'opaque', runner: name, reason: `${name} runs a string that is only known when it runs`, ruleWords: at + 1 };
      }
      if (readsStdin || at >= words.length) break;
      return { kind: 'file', ruleWords: 2 };
    }
  }
  if (dashC) return { kind: 'opaque', runner: name, reason: `${name} -c without a string to run`, ruleWords: words.length };
  if (stdin.kind === 'text') return { kind: 'strings', runner: name, strings: [stdin.text] };
  return fromStdin(name, words, stdin);
}

function sourced(words: ShellWord[], stdin: Stdin): Code {
  const name = words[0].value;
  const file = words[1];
  if (!file) return { kind: 'opaque', runner: name, reason: `${name} without a file`, ruleWords: 1 };
  if (!file.literal) return { kind: 'opaque', runner: name, reason: `${name} reads code from \`${file.raw}\`, only known when it runs`, ruleWords: words.length };
  if (STDIN_PATHS.has(file.value)) return stdin.kind === 'text' ? { kind: 'strings', runner: name, strings: [stdin.text] } : fromStdin(name, words, stdin);
  if (/^\/(dev|proc)\//.test(file.value)) return { kind: 'opaque', runner: name, reason: `${name} reads code from ${file.value}`, ruleWords: words.length };
  return { kind: 'file', ruleWords: 2 };
}

/** Code read from standard input: a rule must name more than the program alone (`bash -s`, `python3 -`, or a /regex/). */
function fromStdin(name: string, words: ShellWord[], stdin: Stdin): Code {
  const ruleWords = Math.max(2, words.length);
  if (stdin.kind === 'file') return { kind: 'file', ruleWords };
  return { kind: 'opaque', runner: name, reason: `${name} runs code it reads from its input, which the command rules cannot read`, ruleWords };
}

function interpreterCode(name: string, words: ShellWord[], stdin: Stdin, spec: InterpreterSpec): Code | undefined {
  const inline = (at: number): Code => ({ kind: 'opaque', runner: name, reason: inlineReason(`${name} ${words[at].value}`), ruleWords: at + 1 });
  for (let i = 1; i < words.length; i++) {
    const { value, literal } = words[i];
    if (!literal) return { kind: 'opaque', runner: name, reason: `${name} runs with words only known when it runs`, ruleWords: words.length };
    if (value === '-') break;
    if (value === '--') return i + 1 < words.length ? { kind: 'file', ruleWords: 1 } : fromStdin(name, words, stdin);
    if (value.startsWith('--')) {
      const [long, attached] = value.slice(2).split(/=(.*)/s);
      if (spec.inlineLong?.includes(long)) return inline(i);
      if (INFO_LONG.has(long)) return undefined;
      if (spec.withArgLong?.includes(long)) i += attached === undefined ? 1 : 0;
      else if (attached === undefined && !spec.longFlags?.includes(long)) return unknownOption(name, words, i, spec);
      continue;
    }
    if (!value.startsWith('-')) return { kind: 'file', ruleWords: 1 };
    for (let j = 1; j < value.length; j++) {
      const letter = value[j];
      if (spec.inline.includes(letter)) return inline(i);
      if (spec.info?.includes(letter)) return undefined;
      if (spec.module?.includes(letter)) return { kind: 'file', ruleWords: 1 };
      if (spec.restArg?.includes(letter)) break;
      if (spec.withArg?.includes(letter)) {
        if (j === value.length - 1) i++;
        break;
      }
      if (!spec.flags?.includes(letter)) return unknownOption(name, words, i, spec);
    }
  }
  return fromStdin(name, words, stdin);
}

/** After an option it does not know, any later word that looks like an inline-code option counts as one. */
function unknownOption(name: string, words: ShellWord[], from: number, spec: InterpreterSpec): Code {
  for (let i = from; i < words.length; i++) {
    const value = words[i].value;
    const long = /^--([\w-]+)/.exec(value)?.[1];
    if ((long && spec.inlineLong?.includes(long)) || (/^-[A-Za-z]+$/.test(value) && [...value.slice(1)].some((l) => spec.inline.includes(l)))) {
      return { kind: 'opaque', runner: name, reason: inlineReason(`${name} ${value}`), ruleWords: i + 1 };
    }
  }
  return { kind: 'file', ruleWords: 1 };
}

function awkCode(name: string, words: ShellWord[]): Code | undefined {
  const programs: number[] = [];
  let fromFile = false;
  for (let i = 1; i < words.length; i++) {
    const { value, literal } = words[i];
    if (!literal && !value.startsWith('-')) {
      if (programs.length === 0 && !fromFile) programs.push(i);
      break;
    }
    if (value === '--') {
      if (programs.length === 0 && !fromFile && i + 1 < words.length) programs.push(i + 1);
      break;
    }
    if (value === '--sandbox') return undefined;
    if (/^(-l|--load)/.test(value)) return { kind: 'opaque', runner: name, reason: `${name} ${value} loads a compiled extension`, ruleWords: words.length };
    if (/^(-[fE]|--file|--exec)/.test(value)) {
      fromFile = true;
      if (/^(-[fE]|--file|--exec)$/.test(value)) i++;
    } else if (/^(-e|--source)$/.test(value)) programs.push(++i);
    else if (/^-[FviW]$/.test(value)) i++;
    else if (!value.startsWith('-')) {
      if (programs.length === 0 && !fromFile) programs.push(i);
      break;
    }
  }
  for (const at of programs) {
    const program = words[at];
    if (!program) continue;
    if (!program.literal) return { kind: 'opaque', runner: name, reason: `${name}'s program is only known when it runs`, ruleWords: at + 1 };
    if (awkRunsCommands(program.value)) return { kind: 'opaque', runner: name, reason: `${name}'s program can run commands (system(), | or @)`, ruleWords: at + 1 };
  }
  return fromFile ? { kind: 'file', ruleWords: 1 } : undefined;
}

function sedCode(words: ShellWord[]): Code | undefined {
  if (words.some((w) => w.value === '--sandbox')) return undefined;
  const scripts: number[] = [];
  let file = false;
  for (let i = 1; i < words.length; i++) {
    const { value } = words[i];
    if (value === '--') {
      if (scripts.length === 0 && !file && i + 1 < words.length) scripts.push(i + 1);
      break;
    }
    if (/^(-e|--expression)$/.test(value)) scripts.push(++i);
    else if (/^(-e.|--expression=)/.test(value)) scripts.push(i);
    else if (/^(-f|--file)/.test(value)) file = true;
    else if (/^(-l|--line-length)$/.test(value)) i++;
    else if (!value.startsWith('-') || !words[i].literal) {
      if (scripts.length === 0 && !file) scripts.push(i);
      break;
    }
  }
  for (const at of scripts) {
    const word = words[at];
    if (!word) continue;
    const script = word.value.replace(/^(-e|--expression=)/, '');
    if (!word.literal) return { kind: 'opaque', runner: 'sed', reason: `sed's script \`${word.raw}\` is only known when it runs`, ruleWords: at + 1 };
    if (sedRunsCommands(script)) return { kind: 'opaque', runner: 'sed', reason: 'its sed script can run commands (the e command or flag, or syntax the rules do not know)', ruleWords: at + 1 };
  }
  return file ? { kind: 'file', ruleWords: 1 } : undefined;
}

function inlineReason(what: string): string {
  return `\`${what}\` runs inline code the command rules cannot read`;
}

/**
 * An option that takes a value, if present: `-c cmd`, `-xc cmd` (the last of a cluster),
 * `-ccmd`, `--command=cmd`, `--command cmd`. `at` is where the value is (the option itself when attached).
 */
function optionValue(words: ShellWord[], options: string[]): { at: number; value: ShellWord } | undefined {
  for (let i = 1; i < words.length; i++) {
    const { value } = words[i];
    for (const option of options) {
      const short = option.length === 2;
      if (value === option || (short && new RegExp(`^-[A-Za-z]+${option[1]}$`).test(value))) return words[i + 1] ? { at: i + 1, value: words[i + 1] } : undefined;
      if (!short && value.startsWith(`${option}=`)) return { at: i, value: { ...words[i], value: value.slice(option.length + 1) } };
      if (short && value.startsWith(option) && !value.startsWith('--')) return { at: i, value: { ...words[i], value: value.slice(2) } };
    }
  }
  return undefined;
}
