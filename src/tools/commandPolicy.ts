// Command rules for run_bash: every simple command the shell would run, wherever it sits (lists,
// pipelines, subshells, groups, substitutions, control-flow and function bodies), is judged on its
// own against the person's allowed/denied prefixes and /regex/ entries. Deny beats allow; what
// cannot be analysed asks. Parsing is unbash's (a maintained, synchronous bash parser).
import type * as Unbash from 'unbash/dist/parser';

// unbash is ESM-only with an "exports" map that this project's node10 module resolution cannot
// read: the types come from its dist path, the code through require (esbuild bundles it into CJS,
// apart: docs/ARCHITECTURE-bundles.md).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parse, forEachChild } = require('unbash') as typeof Unbash;

import { noteSensitive, splitFind, unwrap, WRAPPERS, type ShellWord, type WrapperSpec } from './commandWrappers';

export interface CommandPolicy {
  readonly allowed: readonly string[];
  readonly denied: readonly string[];
}
export type CommandVerdict = 'allow' | 'deny' | 'ask';
export interface CommandPart {
  /** The part as written (cut to PART_TEXT_MAX characters). */
  text: string;
  verdict: CommandVerdict;
  /** Why, in words a person and the model can read. */
  reason: string;
  /** Files its redirections (or find -fprint/-delete) write to. */
  writes?: string[];
}
export interface CommandJudgement {
  verdict: CommandVerdict;
  parts: CommandPart[];
  /** Set when the command could not be (fully) parsed: it then asks, unless a part is denied. */
  problem?: string;
}

export const COMMAND_MAX_CHARS = 1_000_000;
/** Regex entries are not tried on longer texts (the person's regex might backtrack badly). */
const REGEX_TEXT_MAX = 10_000;
const PART_TEXT_MAX = 500;
/** How deep eval / sh -c strings inside strings are followed. */
const NESTED_STRING_DEPTH = 3;

const DECLARING_BUILTINS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);
/** Builtins that can do nothing but compute a status. */
const HARMLESS_BUILTINS = new Set(['true', 'false', ':', '[', 'test']);
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'mksh', 'ash']);
/** Commands that run code from a string, a file or stdin: a rule must name more than the command. */
const CODE_RUNNERS = new Set([...SHELLS, 'eval', 'source', '.']);
const DEVICES_NOT_FILES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/tty']);
// Bash evaluates array subscripts as arithmetic and arithmetic evaluates variables' values, so a
// value like `a[$(rm -rf ~)]` runs its command wherever it is used as a number or a variable name.
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
const NUMBER = /^\s*-?\s*(0[xX][\da-fA-F]+|\d+(#[\w@]+)?)\s*$/;
const SAFE_SUBSCRIPT = /^\s*(-?\d+|@|\*)\s*$/;
const RISKY_SUBSCRIPT = /\[(?!\s*(-?\d+|@|\*)\s*\])/;
const CODE_IN_SUBSCRIPT = /\[[^\]]*(\$\(|`)/;
/** Builtins whose arguments name variables (so a subscript in them is evaluated)... */
const NAME_ARGUMENTS = new Set(['read', 'unset', 'mapfile', 'readarray', 'declare', 'typeset', 'local', 'export', 'readonly', 'getopts', 'let']);
/** ...and those where only the word after one of these options does. */
const NAME_OPTIONS: Record<string, string[]> = { printf: ['-v'], test: ['-v', '-R'], '[': ['-v', '-R'], wait: ['-p'] };
const ARITHMETIC_REASON = 'bash reads a variable here as a number or a name, which runs any $(…) subscript held in it';

/** A settings entry made ready: the words of a prefix, or a regex. */
type Rule = { entry: string; words?: string[]; regex?: RegExp };
type Rules = { allowed: Rule[]; denied: Rule[] };
type Context = { rules: Rules; parts: CommandPart[]; problems: string[]; depth: number };

/** Checks settings entries: non-strings, empty ones and invalid regexes are reported and left out. */
export function checkPolicyEntries(entries: unknown): { allowed: string[]; denied: string[]; problems: string[] } {
  const problems: string[] = [];
  const record = (typeof entries === 'object' && entries) || {};
  const clean = (key: 'allowed' | 'denied', setting: string): string[] => {
    const list = (record as Record<string, unknown>)[key];
    if (list == null) return [];
    if (!Array.isArray(list)) {
      problems.push(`${setting} must be a list of strings; it was ignored.`);
      return [];
    }
    const kept: string[] = [];
    list.forEach((entry: unknown, index) => {
      const where = `${setting}[${index}]`;
      if (typeof entry !== 'string') problems.push(`${where} is not a string; it was ignored.`);
      else if (!entry.trim()) problems.push(`${where} is empty; it was ignored.`);
      else {
        const rule = compileRule(entry.trim());
        if (typeof rule === 'string') problems.push(`${where} ${JSON.stringify(entry)}: ${rule}; it was ignored.`);
        else kept.push(entry.trim());
      }
    });
    return kept;
  };
  return { allowed: clean('allowed', 'toolbelt.runBash.allowedCommands'), denied: clean('denied', 'toolbelt.runBash.deniedCommands'), problems };
}

/** Judges a run_bash command against the rules; see CommandJudgement. Never throws. */
export function judgeCommand(command: string, policy: CommandPolicy): CommandJudgement {
  if (!command.trim()) return { verdict: 'ask', parts: [], problem: 'the command is empty' };
  if (command.length > COMMAND_MAX_CHARS) return { verdict: 'ask', parts: [], problem: `the command is too long to check (over ${COMMAND_MAX_CHARS} characters)` };
  const ctx: Context = { rules: compilePolicy(policy), parts: [], problems: [], depth: 0 };
  judgeScript(command, ctx);
  const { parts, problems } = ctx;
  if (parts.length === 0 && problems.length === 0) problems.push('no command found to check');
  const verdict: CommandVerdict = parts.some((p) => p.verdict === 'deny') ? 'deny'
    : problems.length > 0 || parts.some((p) => p.verdict === 'ask') ? 'ask' : 'allow';
  if (problems.length === 0) return { verdict, parts };
  const distinct = [...new Set(problems)];
  const more = distinct.length > 3 ? `; and ${distinct.length - 3} more` : '';
  return { verdict, parts, problem: distinct.slice(0, 3).join('; ') + more };
}

/** What to tell the model when a command is refused by the rules. */
export function describeRefusal(judgement: CommandJudgement): string {
  const denied = judgement.parts.filter((p) => p.verdict === 'deny').map((p) => `\`${p.text}\` (${p.reason})`);
  return `The command was not run: the person's command rules deny ${denied.join(', ')}.`;
}

/** The parts a person is asked about (neither allowed nor denied), each text once. */
export function partsToApprove(judgement: CommandJudgement): CommandPart[] {
  const seen = new Set<string>();
  return judgement.parts.filter((p) => p.verdict === 'ask' && !seen.has(p.text) && seen.add(p.text));
}

const compiledPolicies = new WeakMap<CommandPolicy, Rules>();
function compilePolicy(policy: CommandPolicy): Rules {
  const compileAll = (entries: readonly string[] = []) =>
    entries.map((e) => (typeof e === 'string' ? compileRule(e.trim()) : '')).filter((r): r is Rule => typeof r !== 'string');
  const rules = compiledPolicies.get(policy) ?? { allowed: compileAll(policy.allowed), denied: compileAll(policy.denied) };
  compiledPolicies.set(policy, rules);
  return rules;
}

/** An entry as a rule, or why it is not one. */
function compileRule(entry: string): Rule | string {
  if (!entry) return 'it is empty';
  if (entry.length >= 2 && entry.startsWith('/') && entry.endsWith('/')) {
    try { return { entry, regex: new RegExp(entry.slice(1, -1)) }; } catch (error) { return `invalid regular expression (${(error as Error).message})`; }
  }
  const script = parse(entry);
  const statement = script.commands[0];
  const command = statement?.command;
  if (script.errors?.length || script.commands.length !== 1 || statement.background || command.type !== 'Command') {
    return 'not a command prefix (write words like "git status", or /regex/)';
  }
  if (!command.name || command.prefix.length > 0 || command.redirects.length > 0) return 'a prefix has only command words (no assignments or redirections)';
  const words = [command.name, ...command.args].map((w) => shellWord(w, entry));
  if (words.some((w) => !w.literal)) return 'a prefix cannot hold expansions, globs or substitutions (use /regex/)';
  return { entry, words: words.map((w) => w.value) };
}

function judgeScript(source: string, ctx: Context): void {
  const visit = (node: Unbash.SyntaxNode, src: string): void => {
    if (node.type === 'Script') {
      if (node.source !== undefined) src = node.source;
      for (const error of (node as Unbash.ParsedScript).errors ?? []) ctx.problems.push(`cannot parse: ${error.message} (at character ${error.pos})`);
    } else if (node.type === 'Command') {
      judgeSimpleCommand(node, src, ctx);
    } else if (node.type === 'Redirected') {
      const writes = writesOf(node.redirects, src);
      if (writes.length > 0) pushPart(ctx, node.redirects.map((r) => src.slice(r.pos, r.end)).join(' '), 'ask', `writes to ${writes.join(', ')}`, writes);
    } else if (evaluatesVariables(node)) {
      pushPart(ctx, src.slice(node.pos, node.end), 'ask', ARITHMETIC_REASON, []);
    }
    forEachChild(node, (child) => visit(child, src));
  };
  try {
    visit(parse(source), source);
  } catch (error) {
    ctx.problems.push(`cannot analyse the command (${(error as Error).message})`);
  }
}

function judgeSimpleCommand(command: Unbash.Command, src: string, ctx: Context): void {
  const text = src.slice(command.pos, command.end);
  const writes = writesOf(command.redirects, src);
  const cautions: string[] = [];
  for (const item of command.prefix) if (item.type === 'Assignment') noteSensitive(item.name, cautions);
  for (const item of [...command.prefix, ...(command.name ? [command.name] : []), ...command.args]) {
    const word = item.type === 'Word' || item.type === 'Assignment' ? shellWord(item, src) : undefined;
    if (word?.literal && CODE_IN_SUBSCRIPT.test(word.value)) cautions.push(`\`${clip(word.raw)}\` holds $(…) in a subscript, which bash runs where it is used as a variable name`);
  }
  if (!command.name) {
    if (writes.length > 0) cautions.push(`it writes to ${writes.join(', ')}`);
    return pushPart(ctx, text, cautions.length > 0 ? 'ask' : 'allow', cautions.join('; ') || 'only sets variables', writes);
  }
  judgeWords([command.name, ...command.args].map((w) => shellWord(w, src)), text, writes, cautions, ctx);
}

/** One command of a wrapper chain; a prefix rule allows it only when it has at least minRuleWords words. */
type Level = { words: ShellWord[]; wrapper?: WrapperSpec; minRuleWords: number };

/** Judges one command's words, through the wrappers it is run by (sudo env X=1 nohup cmd ...). */
function judgeWords(words: ShellWord[], text: string, writes: string[], cautions: string[], ctx: Context): void {
  const levels: Level[] = [];
  let current: ShellWord[] | undefined = words;
  while (current && current.length > 0 && levels.length < 8) {
    const name: string = current[0].literal ? basename(current[0].value) : '';
    const spec: WrapperSpec | undefined = WRAPPERS[name];
    const inner: ShellWord[] | 'none' | 'opaque' = spec ? unwrap(current, spec, cautions) : 'none';
    // A rule naming only a wrapper (`sudo`, `env`) or a shell does not allow whatever they run.
    const minRuleWords = Array.isArray(inner) ? current.length - inner.length + 1 : inner === 'opaque' ? current.length : CODE_RUNNERS.has(name) ? 2 : 1;
    levels.push({ words: current, wrapper: Array.isArray(inner) ? spec : undefined, minRuleWords });
    current = Array.isArray(inner) ? inner : undefined;
  }
  const innermost = levels[levels.length - 1];
  const name = innermost.words[0].literal ? basename(innermost.words[0].value) : '';
  const args = innermost.words.slice(1);
  if (DECLARING_BUILTINS.has(name)) for (const word of args) noteSensitive(/^([A-Za-z_]\w*)\+?=/.exec(word.value)?.[1], cautions);
  const names = NAME_ARGUMENTS.has(name) ? args.filter((w) => !/^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/.test(w.raw))
    : args.filter((_, i) => i > 0 && NAME_OPTIONS[name]?.includes(args[i - 1].value));
  for (const word of names) {
    if (name === 'let' || !word.literal || RISKY_SUBSCRIPT.test(word.value)) cautions.push(`${name} evaluates \`${clip(word.raw)}\` as a variable name or number, which can run code held in a subscript`);
  }
  let runs: ShellWord[][] = [];
  if (name === 'find') ({ own: innermost.words, runs, writes } = splitFind(innermost.words, writes));
  judgeLevels(levels, text, writes, cautions, ctx);
  for (const inner of runs) {
    if (inner.length > 0) judgeWords(inner, joinWords(inner, true), [], [], ctx);
    else pushPart(ctx, text, 'ask', 'find -exec without a command', []);
  }
}

function judgeLevels(levels: Level[], text: string, writes: string[], cautions: string[], ctx: Context): void {
  const extras = [...cautions, ...(writes.length > 0 ? [`it writes to ${writes.join(', ')}`] : [])];
  // Before the parts of a string it runs (eval, sh -c), which are judged on the way.
  const at = ctx.parts.length;
  const part = (verdict: CommandVerdict, reason: string) => pushPart(ctx, text, verdict, reason, writes, at);
  let regexUnchecked = false;
  for (const level of levels) {
    for (const rule of ctx.rules.denied) {
      const onWords = matches(rule, level.words, true);
      const onText = rule.regex && level === levels[0] ? testRegex(rule.regex, text) : false;
      if (onWords === true || onText === true) {
        const runs = level === levels[0] ? '' : ` (it runs \`${clip(joinWords(level.words))}\`)`;
        return part('deny', `denied by ${describeRule(rule)}${runs}`);
      }
      if (onWords === undefined || onText === undefined) regexUnchecked = true;
    }
  }
  const innermost = levels[levels.length - 1].words;
  // Checked even when a rule allows the shell itself, so a denied command inside the string is found.
  const nested = nestedString(innermost)?.(ctx);
  let allowedBy: string | undefined;
  let refusal: string | undefined;
  let tried = levels[0];
  for (const [index, level] of levels.entries()) {
    tried = level;
    const matching = ctx.rules.allowed.filter((rule) => matches(rule, level.words, false) === true);
    const hit = matching.find((rule) => !rule.words || rule.words.length >= level.minRuleWords);
    if (!hit && matching.length > 0) refusal = `${describeRule(matching[0])} names only \`${joinWords(level.words.slice(0, matching[0].words?.length), true)}\`, not the command it runs`;
    const last = index === levels.length - 1;
    if (hit) allowedBy = `allowed by ${describeRule(hit)}`;
    else if (last && nested) [allowedBy, refusal] = nested.allowed ? [nested.reason] : [undefined, nested.reason];
    else if (last && innermost[0].literal && HARMLESS_BUILTINS.has(innermost[0].value)) allowedBy = 'a builtin without side effects';
    if (allowedBy || !level.wrapper?.transparent) break;
  }
  if (regexUnchecked) return part('ask', ['too long to test against the /regex/ rules', ...extras].join('; '));
  if (!innermost[0].literal) return part('ask', [`the command name \`${innermost[0].raw}\` is only known when it runs`, ...extras].join('; '));
  if (allowedBy) return part(extras.length > 0 ? 'ask' : 'allow', extras.length > 0 ? `${allowedBy}, but ${extras.join('; ')}` : allowedBy);
  return part('ask', [refusal ?? `\`${clip(joinWords(tried.words, true))}\` is not in the allowed commands`, ...extras].join('; '));
}

/**
 * eval, trap and `sh -c` run a string as shell code. When it is literal, its commands are judged
 * as parts of their own and the wrapper is as allowed as they all are.
 */
function nestedString(words: ShellWord[]): ((ctx: Context) => { allowed: boolean; reason: string }) | undefined {
  const name = words[0].literal ? basename(words[0].value) : '';
  let code: ShellWord[] | undefined;
  if (name === 'eval') code = words.slice(1);
  else if (name === 'trap') {
    const dashes = words[1]?.value === '--';
    const action = words[dashes ? 2 : 1];
    if (action && (dashes || !action.value.startsWith('-'))) code = [action];
  } else if (SHELLS.has(name)) {
    let dashC = false;
    for (let i = 1; i < words.length && !code; i++) {
      const value = words[i].value;
      if (['-o', '+o', '--rcfile', '--init-file'].includes(value)) i++;
      else if (/^[-+][A-Za-z]+$/.test(value)) dashC ||= value.startsWith('-') && value.includes('c');
      else if (value === '--') code = dashC ? words.slice(i + 1, i + 2) : [];
      else if (!value.startsWith('--')) code = dashC ? [words[i]] : [];
    }
    if (!dashC) return undefined;
  }
  if (!code) return undefined;
  const string = code;
  return (ctx) => {
    if (string.length === 0) return { allowed: false, reason: `${name} without a string to run` };
    if (string.some((w) => !w.literal)) return { allowed: false, reason: `${name} runs a string that is only known when it runs` };
    if (ctx.depth >= NESTED_STRING_DEPTH) return { allowed: false, reason: `${name} strings nest too deeply to check` };
    const before = ctx.parts.length;
    judgeScript(string.map((w) => w.value).join(' '), { ...ctx, depth: ctx.depth + 1 });
    const allowed = ctx.parts.length > before && ctx.parts.slice(before).every((p) => p.verdict === 'allow');
    return { allowed, reason: allowed ? `${name} runs only allowed commands (listed on their own)` : `${name} runs commands that are not all allowed (listed on their own)` };
  };
}

/** Whether a rule matches a command's words; undefined when a regex could not be tried. */
function matches(rule: Rule, words: ShellWord[], denying: boolean): boolean | undefined {
  if (rule.regex) return testRegex(rule.regex, joinWords(words));
  const prefix = rule.words ?? [];
  if (words.length < prefix.length) return false;
  return prefix.every((expected, i) => {
    const word = words[i];
    if (!word.literal) return false;
    // A deny rule for `rm` also holds for /bin/rm; an allow rule for `git` does not allow ./git.
    return word.value === expected || (denying && i === 0 && !expected.includes('/') && basename(word.value) === expected);
  });
}

function testRegex(regex: RegExp, text: string): boolean | undefined {
  return text.length > REGEX_TEXT_MAX ? undefined : regex.test(text);
}

function shellWord(word: Unbash.Word | Unbash.Assignment, src: string): ShellWord {
  const raw = src.slice(word.pos, word.end);
  if (word.type === 'Assignment') return { value: raw, literal: word.value.type === 'Word' && isLiteral(word.value), raw };
  return { value: isLiteral(word) ? word.value : raw, literal: isLiteral(word), raw };
}

/** No expansion, substitution, glob or brace: the word means the same whenever it runs. */
function isLiteral(word: Unbash.Word): boolean {
  return (word.parts ?? []).every((part) =>
    part.type === 'Literal' || part.type === 'SingleQuoted' || part.type === 'AnsiCQuoted' ||
    (part.type === 'DoubleQuoted' && part.parts.every((child) => child.type === 'Literal')));
}

function writesOf(redirects: readonly Unbash.Redirection[], src: string): string[] {
  const writes: string[] = [];
  for (const r of redirects) {
    if (r.type !== 'Redirect' || !r.target || !['>', '>>', '>|', '&>', '&>>', '<>', '>&'].includes(r.operator)) continue;
    const target = shellWord(r.target, src);
    if (r.operator === '>&' && target.literal && /^(\d+-?|-)$/.test(target.value)) continue;
    if (!(target.literal && DEVICES_NOT_FILES.has(target.value))) writes.push(target.raw);
  }
  return writes;
}

/** Where bash reads a variable's value as arithmetic or as a variable name (see ARITHMETIC_TESTS). */
function evaluatesVariables(node: Unbash.SyntaxNode): boolean {
  switch (node.type) {
    case 'ArithmeticExpansion': case 'ArithmeticCommand': case 'ArithmeticFor': {
      let found = false;
      const scan = (n: Unbash.SyntaxNode): void => {
        if (found || n.type === 'Script' || n.type === 'CompoundList') return;
        found = n.type === 'ArithmeticCommandExpansion' || (n.type === 'ArithmeticWord' && !NUMBER.test(n.value));
        if (!found) forEachChild(n, scan);
      };
      forEachChild(node, scan);
      return found;
    }
    case 'TestBinary':
      return ARITHMETIC_TESTS.has(node.operator) && !(NUMBER.test(node.left.text) && NUMBER.test(node.right.text));
    case 'TestUnary':
      return (node.operator === '-v' || node.operator === '-R') && (!isLiteral(node.operand) || RISKY_SUBSCRIPT.test(node.operand.text));
    case 'ParameterExpansion': {
      const op = node.operation;
      const numeric = (word: Unbash.Word | undefined) => !word || NUMBER.test(word.text);
      return (node.prefix === '!' && !node.index && op?.type !== 'Names') || (node.index !== undefined && !SAFE_SUBSCRIPT.test(node.index.text)) ||
        (op?.type === 'Slice' && !(numeric(op.offset) && numeric(op.length)));
    }
    case 'Assignment':
      return node.index !== undefined && !SAFE_SUBSCRIPT.test(node.index.text);
    default:
      return false;
  }
}

function pushPart(ctx: Context, text: string, verdict: CommandVerdict, reason: string, writes: string[], at = ctx.parts.length): void {
  const part: CommandPart = { text: clip(text), verdict, reason, ...(writes.length > 0 ? { writes } : {}) };
  if (at === ctx.parts.length) ctx.parts.push(part);
  else ctx.parts.splice(at, 0, part);
}

function describeRule(rule: Rule): string {
  return rule.regex ? rule.entry : `"${rule.entry}"`;
}

function joinWords(words: ShellWord[], raw = false): string {
  return words.map((w) => (raw || !w.literal ? w.raw : w.value)).join(' ');
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function clip(text: string): string {
  return text.length > PART_TEXT_MAX ? `${text.slice(0, PART_TEXT_MAX)}…` : text;
}
