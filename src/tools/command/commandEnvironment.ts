// Environment variables in front of a command (`X=1 cmd`, `env X=1 cmd`, `export X=1`): many make
// a program run another one (GIT_CONFIG_*, LD_PRELOAD, BASH_ENV, PAGER, NODE_OPTIONS...), and
// no list of those is ever complete. So only names known to change nothing but formatting,
// language or verbosity go without asking; every other name asks.

const HARMLESS_NAMES = new Set([
  'LANG', 'LANGUAGE', 'TZ', 'TERM', 'COLUMNS', 'LINES', 'NO_COLOR', 'FORCE_COLOR', 'CLICOLOR', 'CLICOLOR_FORCE', 'COLORTERM',
  'CI', 'NODE_ENV', 'DEBUG', 'VERBOSE', 'TMPDIR', 'TEMP', 'TMP', 'SOURCE_DATE_EPOCH', 'TIME_STYLE', 'NODE_NO_WARNINGS',
  'PYTHONUNBUFFERED', 'PYTHONDONTWRITEBYTECODE', 'PYTHONIOENCODING', 'PYTHONUTF8', 'PYTHONHASHSEED',
  'RUST_LOG', 'RUST_BACKTRACE', 'CARGO_TERM_COLOR', 'GOMAXPROCS', 'GOTRACEBACK', 'OMP_NUM_THREADS',
]);
/** Words a few of the harmless names start with (LC_ALL, LC_CTYPE, ...). */
const HARMLESS_PREFIXES = ['LC_'];
/** For messages: what goes without asking. */
export const HARMLESS_SUMMARY = 'LANG, LC_*, TZ, NO_COLOR, CI, NODE_ENV, DEBUG and a few like them';

/**
 * Variables whose value is itself a command line some program runs: under deny rules their
 * value is judged as a command (`GIT_CONFIG_VALUE_0='rm x'`, `GIT_SSH_COMMAND`, `PAGER`, `CC`).
 */
const COMMAND_VALUE = /(^|_)(COMMAND|CMD|PAGER|EDITOR|VISUAL|SHELL|ASKPASS|BROWSER|PROGRAM|WRAPPER|DIFF|HOOK|CC|CXX|MAKE)$|^GIT_CONFIG_VALUE_\d+$|^LESS(OPEN|CLOSE)$/;
/** Prompt strings: bash expands `$(…)` in them when it shows them (PS4 under `set -x`). */
const PROMPT_VALUE = /^(PS[0-4]|PROMPT_COMMAND)$/;

export function isHarmlessVariable(name: string): boolean {
  return HARMLESS_NAMES.has(name) || HARMLESS_PREFIXES.some((prefix) => name.startsWith(prefix) && /^[A-Z_]+$/.test(name));
}

/**
 * A plain `NAME=value` of the shell itself reaches programs only when NAME is already exported,
 * which every upper-case name may be (PAGER, HOME, GIT_DIR, ...): those ask unless harmless.
 * Lower-case names are the shell's own scratch variables, except the few programs read.
 */
export function isSensitiveShellVariable(name: string): boolean {
  if (isHarmlessVariable(name)) return false;
  return /^[A-Z_][A-Z0-9_]*$/.test(name) || /^(npm|yarn|pnpm)_config_/i.test(name) || /^BASH_FUNC_/.test(name);
}

/** How a variable's value is run, if it is: as a command line, as prompt text, or not at all. */
export function valueRunsAs(name: string): 'command' | 'prompt' | 'git-config' | 'function' | undefined {
  if (PROMPT_VALUE.test(name)) return 'prompt';
  if (name.startsWith('BASH_FUNC_')) return 'function';
  if (name === 'GIT_CONFIG_PARAMETERS') return 'git-config';
  return COMMAND_VALUE.test(name) ? 'command' : undefined;
}

/** The values of `'key'='value'` pairs (GIT_CONFIG_PARAMETERS), any of which may be a command git runs. */
export function gitConfigValues(text: string): string[] {
  return [...text.matchAll(/'[^']*'='((?:[^']|'\\'')*)'/g)].map((m) => m[1].replace(/'\\''/g, "'"));
}

/** Why setting `name` in front of a command asks, or undefined when it need not. */
export function environmentCaution(name: string, how: 'for the command' | 'for every later command'): string | undefined {
  if (isHarmlessVariable(name)) return undefined;
  return `it sets ${name} ${how}, which can change what a program runs (only ${HARMLESS_SUMMARY} go without asking)`;
}
