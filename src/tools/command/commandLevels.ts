// One simple command judged through the wrappers it is run by (sudo env X=1 nohup cmd ...): deny
// rules hold at every level, an allow rule must name what really runs, and code the command runs
// from a string is judged as commands of its own.
import { codeOf, type Code, type Stdin } from './commandCode';
import { nameArgumentCautions } from './commandEvaluation';
import { denyRulesSet, judgeAssignment, judgeDenied, NESTED_STRING_DEPTH, pushPart, UNREADABLE_UNDER_DENY, type Context } from './commandContext';
import { optionCommands } from './commandOptions';
import { describeRule, matches, ruleLength, testRegex, type Rule } from './commandRules';
import { basename, clip, joinWords, programName, type ShellWord } from './commandWords';
import { splitFind, unwrap, WRAPPERS } from './commandWrappers';

/** Builtins that can do nothing but compute a status. */
const HARMLESS_BUILTINS = new Set(['true', 'false', ':', '[', 'test']);
const DECLARING = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);
const RM: ShellWord = { value: 'rm', literal: true, raw: 'rm' };

export type CommandInfo = {
  text: string;
  writes: string[];
  /** Why it must ask even when a rule allows it. */
  cautions: string[];
  /** Code it runs that the rules cannot read and no rule can lift (a computed GIT_SSH_COMMAND). */
  unreadables: string[];
  stdin: Stdin;
};

/** One command of a wrapper chain; a prefix rule allows it only when it has at least minRuleWords words. */
type Level = { words: ShellWord[]; unwrapped: boolean; transparent: boolean; opaqueOptions: boolean; minRuleWords: number };

export function judgeWords(words: ShellWord[], info: CommandInfo, ctx: Context): void {
  const levels: Level[] = [];
  const assignments: ShellWord[] = [];
  let current: ShellWord[] = words;
  while (current.length > 0 && levels.length < 8) {
    const spec = current[0].literal ? WRAPPERS[basename(current[0].value)] : undefined;
    const inner = spec ? unwrap(current, spec, assignments) : 'none';
    levels.push({ words: current, unwrapped: Array.isArray(inner), transparent: spec?.transparent ?? false, opaqueOptions: inner === 'opaque', minRuleWords: 1 });
    if (!Array.isArray(inner)) break;
    current = inner;
  }
  const { cautions, unreadables } = info;
  let { writes } = info;
  for (const word of assignments) judgeAssignment(word, 'for the command', cautions, unreadables, ctx);
  const innermost = levels[levels.length - 1];
  const name = innermost.words[0].literal ? basename(innermost.words[0].value) : '';
  const args = innermost.words.slice(1);
  const evaluations = nameArgumentCautions(name, args);
  if (evaluations.length > 0) {
    ctx.shared.evaluates = true;
    cautions.push(...evaluations);
  }
  if (DECLARING.has(name)) {
    const exported = name === 'export' || args.some((w) => /^-[a-zA-Z]*x/.test(w.value));
    for (const word of args) {
      if (/^[A-Za-z_]\w*(\[[^\]]*\])?\+?=/.test(word.value)) judgeAssignment(word, exported ? 'for every later command' : 'shell', cautions, unreadables, ctx);
      // `export NAME` exports a value set before (read NAME, NAME=… earlier): the same as setting it for every later command.
      else if (exported && /^[A-Za-z_]\w*$/.test(word.value)) judgeAssignment({ ...word, value: `${word.value}=` }, 'for every later command', cautions, [], ctx);
    }
  }
  const hashed = name === 'hash' ? args.findIndex((w) => /^-[a-zA-Z]*p$/.test(w.value)) : -1;
  if (hashed >= 0) {
    cautions.push('hash -p makes a command name run another program');
    const program = args[hashed + 1];
    if (program?.literal && denyRulesSet(ctx)) judgeDenied([program.value], 'script', ctx, `hash -p makes \`${args[hashed + 2]?.raw ?? ''}\` run it`);
  }
  if (name === 'enable' && args.some((w) => /^-[a-zA-Z]*f/.test(w.value))) cautions.push('enable -f loads a builtin from a compiled file');
  let runs: ShellWord[][] = [];
  let deletes = false;
  if (name === 'find') ({ own: innermost.words, runs, writes, deletes } = splitFind(innermost.words, writes));
  for (const { option, command } of optionCommands(name, innermost.words)) {
    cautions.push(`its ${option} option runs \`${clip(command.raw)}\``);
    if (!command.literal) unreadables.push(`the command its ${option} option runs is only known when it runs`);
    // git runs an alias value starting with `!` as a shell command; less-style `|cmd` pipes.
    else if (denyRulesSet(ctx)) judgeDenied([command.value.replace(/^[|!]/, '')], 'script', ctx, `${name} runs it (${option})`);
  }
  // xargs appends words from its input: a wrapper it runs without a command gets one from there.
  const fromInput = levels.length > 1 && levels.slice(0, -1).some((l) => l.words[0].literal && basename(l.words[0].value) === 'xargs');
  const code: Code | undefined = fromInput && WRAPPERS[name] && !innermost.unwrapped
    ? { kind: 'opaque', runner: name, reason: `xargs gives \`${name}\` the command to run from its input, which the command rules cannot read`, ruleWords: innermost.words.length + 1 }
    : codeOf(innermost.words, info.stdin);
  const innermostMin = !code ? 1 : code.kind === 'strings' ? 2 : code.ruleWords;
  for (const level of levels) level.minRuleWords = level.opaqueOptions ? level.words.length : level.words.length - innermost.words.length + innermostMin;
  judgeLevels(levels, { ...info, writes }, code, deletes, ctx);
  for (const inner of runs) {
    if (inner.length > 0) judgeWords(inner, { text: joinWords(inner, true), writes: [], cautions: [], unreadables: [], stdin: { kind: 'unknown' } }, ctx);
    else pushPart(ctx, info.text, 'ask', 'find -exec without a command', []);
  }
}

function judgeLevels(levels: Level[], info: CommandInfo, code: Code | undefined, deletes: boolean, ctx: Context): void {
  const { text, writes, cautions, unreadables } = info;
  const extras = [...cautions, ...(writes.length > 0 ? [`it writes to ${writes.join(', ')}`] : [])];
  // Before the parts of a string it runs (eval, sh -c), which are judged on the way.
  const at = ctx.parts.length;
  const part = (verdict: 'allow' | 'deny' | 'ask', reasons: string[], rule?: Rule) => pushPart(ctx, text, verdict, reasons.join('; '), writes, at, rule?.entry);
  const denied = deniedBy(levels, text, deletes, ctx);
  if (denied && denied !== 'unchecked') return part('deny', [denied.reason], denied.rule);
  const innermost = levels[levels.length - 1].words;
  // Checked even when a rule allows the runner itself, so a denied command inside the string is found.
  const nested = code?.kind === 'strings' ? judgeStrings(code.runner, code.strings, ctx) : undefined;
  let allowedBy: string | undefined;
  let allowedRule: Rule | undefined;
  let refusal: string | undefined;
  let tried = levels[0];
  for (const [index, level] of levels.entries()) {
    tried = level;
    const matching = ctx.rules.allowed.filter((rule) => matches(rule, level.words, false) === true);
    const hit = matching.find((rule) => ruleLength(rule) >= level.minRuleWords);
    if (!hit && matching.length > 0) {
      const what = code?.kind === 'opaque' || code?.kind === 'file' ? 'the code it runs' : 'the command it runs';
      refusal = `${describeRule(matching[0])} names only \`${joinWords(level.words.slice(0, matching[0].words?.length), true)}\`, not ${what}`;
    }
    const last = index === levels.length - 1;
    if (hit) [allowedBy, allowedRule] = [`allowed by ${describeRule(hit)}`, hit];
    else if (last && nested) [allowedBy, refusal] = nested.allowed ? [nested.reason] : [undefined, nested.reason];
    else if (last && innermost[0].literal && HARMLESS_BUILTINS.has(innermost[0].value)) allowedBy = 'a builtin without side effects';
    if (allowedBy || !level.unwrapped || !level.transparent) break;
  }
  // Code the rules cannot read: a rule naming it (`python3 -c`, a /regex/) may allow it; under deny rules nothing else does.
  const unknownName = programName(innermost[0]) === undefined;
  const allowing = code?.kind === 'opaque' && code.ruleWords <= innermost.length ? `an allowedCommands entry \`${clip(joinWords(innermost.slice(0, code.ruleWords), true))}\`` : 'a /regex/ allowedCommands entry';
  const liftable = [
    ...(code?.kind === 'opaque' ? [`${code.reason} (to run it: put the code in a file and run that, which asks, or add ${allowing})`] : []),
    ...(nested?.unreadable ? [nested.reason] : []),
    ...(unknownName ? [`the command name \`${innermost[0].raw}\` is only known when it runs${denyRulesSet(ctx) ? ' (write the program\'s name)' : ''}`] : []),
  ];
  const blocking = [...unreadables, ...(allowedRule ? [] : liftable)];
  if (refusal && blocking.length > 0) blocking.unshift(refusal);
  if (blocking.length > 0 && denyRulesSet(ctx)) return part('deny', [...blocking, UNREADABLE_UNDER_DENY]);
  if (denied === 'unchecked') return part('ask', ['too long to test against the /regex/ rules', ...extras]);
  if (blocking.length > 0) return part('ask', [...blocking, ...extras]);
  if (allowedBy) return extras.length > 0 ? part('ask', [`${allowedBy}, but ${extras.join('; ')}`], allowedRule) : part('allow', [allowedBy], allowedRule);
  return part('ask', [refusal ?? `\`${clip(joinWords(tried.words, true))}\` is not in the allowed commands`, ...extras]);
}

/** The deny rule a level breaks (any word may be the command of a wrapper whose options are not understood). */
function deniedBy(levels: Level[], text: string, deletes: boolean, ctx: Context): { reason: string; rule: Rule } | 'unchecked' | undefined {
  let unchecked = false;
  for (const [index, level] of levels.entries()) {
    const own = named(level.words);
    const candidates = level.opaqueOptions ? [own, ...level.words.flatMap((w, i) => (i > 0 && w.literal && !w.value.startsWith('-') ? [named(level.words.slice(i))] : []))] : [own];
    for (const words of candidates) {
      for (const rule of ctx.rules.denied) {
        const onWords = matches(rule, words, true);
        const onText = rule.regex && index === 0 && words === own ? testRegex(rule.regex, text) : false;
        if (onWords === true || onText === true) return { reason: `denied by ${describeRule(rule)}${index === 0 && words === own ? '' : ` (it runs \`${clip(joinWords(words))}\`)`}`, rule };
        if (onWords === undefined || onText === undefined) unchecked = true;
      }
    }
    if (level.opaqueOptions && ctx.rules.denied.length > 0) {
      const strings = level.words.slice(1).filter((w) => w.literal && /[\s;|&]/.test(w.value)).map((w) => w.value);
      judgeDenied(strings, 'script', ctx, `\`${level.words[0].value}\` may run it as a command`);
    }
  }
  const deleting = deletes ? ctx.rules.denied.find((rule) => matches(rule, [RM], true) === true) : undefined;
  if (deleting) return { reason: `find -delete deletes the files it finds, as \`rm\` does, which is denied by ${describeRule(deleting)}`, rule: deleting };
  return unchecked ? 'unchecked' : undefined;
}

/** The words with a computed folder but a known program (`$(npm bin)/rm`) named by that program, for deny rules. */
function named(words: ShellWord[]): ShellWord[] {
  if (words[0].literal) return words;
  const name = programName(words[0]);
  return name ? [{ value: name, literal: true, raw: words[0].raw }, ...words.slice(1)] : words;
}

/** eval, trap, `sh -c` and the like: their literal strings are judged as commands of their own. */
function judgeStrings(runner: string, strings: string[], ctx: Context): { allowed: boolean; unreadable?: boolean; reason: string } {
  if (ctx.depth >= NESTED_STRING_DEPTH) return { allowed: false, unreadable: true, reason: `${runner} strings nest too deeply to check` };
  const before = ctx.parts.length;
  const problems = ctx.problems.length;
  for (const string of strings) ctx.judgeText(string, { ...ctx, depth: ctx.depth + 1 });
  const allowed = ctx.problems.length === problems && ctx.parts.slice(before).every((p) => p.verdict === 'allow');
  return { allowed, reason: allowed ? `${runner} runs only allowed commands (listed on their own)` : `${runner} runs commands that are not all allowed (listed on their own)` };
}
