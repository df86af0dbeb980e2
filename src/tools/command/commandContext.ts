// What one judgement carries through every string it reads (the rules, the parts so far, how
// deep it is), and the judging its modules share: parts, deny-only reading of text that may
// run, and variables set in front of a command.
import type { CommandPart, CommandVerdict } from './commandParts';
import { decodeEscapes } from './commandEvaluation';
import { environmentCaution, gitConfigValues, isSensitiveShellVariable, HARMLESS_SUMMARY, valueRunsAs } from './commandEnvironment';
import type { Rules } from './commandRules';
import { clip, type ShellWord } from './commandWords';

/** How deep strings run as code (eval, sh -c, values bash evaluates) inside strings are followed. */
export const NESTED_STRING_DEPTH = 3;
export const UNREADABLE_UNDER_DENY = 'with denied commands set, code the rules cannot read is refused';

/** How a text runs: as commands, or as prompt text where only its $(…), `…` and $((…)) run. */
export type TextMode = 'script' | 'prompt';
/** What the whole judgement shares, whatever string it is in: texts bash may evaluate, and the denied parts' texts. */
type Shared = { evaluates: boolean; latent: string[]; denied: Set<string> };
export type Context = {
  rules: Rules;
  parts: CommandPart[];
  problems: string[];
  depth: number;
  shared: Shared;
  /** Judges a text as shell code (commandJudge's judgeScript), for the strings found on the way. */
  judgeText: (source: string, ctx: Context, mode?: TextMode) => void;
};

export function newShared(): Shared {
  return { evaluates: false, latent: [], denied: new Set() };
}

export function denyRulesSet(ctx: Context): boolean {
  return ctx.rules.denied.length > 0;
}

/** The verdict for code the rules cannot read: refused under deny rules (it might run a denied one), asked otherwise. */
export function unreadable(ctx: Context): CommandVerdict {
  return denyRulesSet(ctx) ? 'deny' : 'ask';
}

/**
 * A `NAME=value` in front of a command, of env or sudo, of export or declare, or on its own:
 * names that can change what a program runs ask; a value that is itself a command line is
 * judged for denied commands.
 */
export function judgeAssignment(word: ShellWord, how: 'for the command' | 'for every later command' | 'shell', cautions: string[], unreadables: string[], ctx: Context): void {
  const match = /^([^=]+?)(\[[^\]]*\])?\+?=(.*)$/s.exec(word.value);
  if (!match) return;
  const [, name, , value] = match;
  const caution = how === 'shell'
    ? isSensitiveShellVariable(name) ? `it sets ${name}, which programs it starts may read (only ${HARMLESS_SUMMARY} go without asking)` : undefined
    : environmentCaution(name, how);
  if (caution) cautions.push(caution);
  const runsAs = valueRunsAs(name);
  if (!runsAs || !caution) return;
  if (!word.literal) unreadables.push(`${name} holds a command that is only known when it runs; ${UNREADABLE_UNDER_DENY}`);
  else if (denyRulesSet(ctx)) {
    const commands = runsAs === 'git-config' ? gitConfigValues(value) : runsAs === 'function' ? [`f${value}`] : [value];
    const texts = runsAs === 'prompt' ? promptVariants(value) : commands.map((c) => c.replace(/^[|!]/, ''));
    judgeDenied(texts, runsAs === 'prompt' ? 'prompt' : 'script', ctx, `${name} holds it, and a program runs it`);
  }
}

/**
 * Judges text that may run (a variable's value, a string a program runs) and keeps only what is
 * denied: the rest asks already. A text that cannot be read fully is refused when `strict`.
 */
export function judgeDenied(texts: string[], mode: TextMode, ctx: Context, origin: string, strict = false): boolean {
  let denied = false;
  for (const text of new Set(texts)) {
    const sub: Context = { ...ctx, parts: [], problems: [], depth: ctx.depth + 1, shared: newShared() };
    if (ctx.depth < NESTED_STRING_DEPTH) ctx.judgeText(text, sub, mode);
    else sub.problems.push('it nests too deeply to check');
    for (const part of sub.parts) {
      if (part.verdict !== 'deny' || ctx.shared.denied.has(part.text)) continue;
      pushPart(ctx, part.text, 'deny', `${part.reason}; ${origin}`, part.writes ?? [], ctx.parts.length, part.rule);
      denied = true;
    }
    if (strict && sub.problems.length > 0 && !denied) {
      pushPart(ctx, text, 'deny', `${sub.problems[0]}: bash may complete and run it where the value is evaluated; ${UNREADABLE_UNDER_DENY}`, []);
      denied = true;
    }
  }
  return denied;
}

/** A prompt string as bash may read it: as written, with `\$` made `$` (prompt escapes), with printf escapes decoded. */
export function promptVariants(text: string): string[] {
  return [text, text.replace(/\\([$`])/g, '$1'), decodeEscapes(text)];
}

export function pushPart(ctx: Context, text: string, verdict: CommandVerdict, reason: string, writes: string[], at = ctx.parts.length, rule?: string): void {
  const part: CommandPart = { text: clip(text), verdict, reason, ...(writes.length > 0 ? { writes } : {}), ...(rule !== undefined ? { rule } : {}) };
  if (verdict === 'deny') ctx.shared.denied.add(part.text);
  if (at === ctx.parts.length) ctx.parts.push(part);
  else ctx.parts.splice(at, 0, part);
}
