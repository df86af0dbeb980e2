// The person's allowed/denied command entries made ready for matching: word prefixes or /regex/.
import type * as Unbash from 'unbash/dist/parser';
import { basename, joinWords, shellWord, type ShellWord } from './commandWords';

// unbash is ESM-only with an "exports" map that this project's node10 module resolution cannot
// read: the types come from its dist path, the code through require (esbuild bundles it into CJS).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parse } = require('unbash') as typeof Unbash;

/** A settings entry made ready: the words of a prefix, or a regex. */
export type Rule = { entry: string; words?: string[]; regex?: RegExp };
export type Rules = { allowed: Rule[]; denied: Rule[] };

/** Regex entries are not tried on longer texts (the person's regex might backtrack badly). */
const REGEX_TEXT_MAX = 10_000;
/** Policies kept compiled: a few settings generations (user, workspace, accepted or not). */
const CACHED_POLICIES = 16;
const compiledPolicies = new Map<string, Rules>();

/**
 * The rules of a policy, compiled once per content: a list changed in place or rebuilt with the
 * same entries is looked up by what it holds, never by the array's identity.
 */
export function compilePolicy(policy: { readonly allowed?: readonly unknown[]; readonly denied?: readonly unknown[] }): Rules {
  const allowed = [...(policy.allowed ?? [])];
  const denied = [...(policy.denied ?? [])];
  const key = JSON.stringify([allowed, denied]);
  let rules = compiledPolicies.get(key);
  if (rules) {
    compiledPolicies.delete(key);
  } else {
    const compileAll = (entries: unknown[]) =>
      entries.map((e) => (typeof e === 'string' ? compileRule(e.trim()) : '')).filter((r): r is Rule => typeof r !== 'string');
    rules = { allowed: compileAll(allowed), denied: compileAll(denied) };
    if (compiledPolicies.size >= CACHED_POLICIES) compiledPolicies.delete(compiledPolicies.keys().next().value as string);
  }
  compiledPolicies.set(key, rules);
  return rules;
}

/** An entry as a rule, or why it is not one. */
export function compileRule(entry: string): Rule | string {
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

/** Whether a rule matches a command's words; undefined when a regex could not be tried. */
export function matches(rule: Rule, words: readonly ShellWord[], denying: boolean): boolean | undefined {
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

export function testRegex(regex: RegExp, text: string): boolean | undefined {
  return text.length > REGEX_TEXT_MAX ? undefined : regex.test(text);
}

export function describeRule(rule: Rule): string {
  return rule.regex ? rule.entry : `"${rule.entry}"`;
}

/** How many words a rule names (a regex may name any number). */
export function ruleLength(rule: Rule): number {
  return rule.words?.length ?? Number.POSITIVE_INFINITY;
}
