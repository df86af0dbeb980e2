// Command rules for run_bash: every simple command the shell would run, wherever it sits (lists,
// pipelines, subshells, groups, substitutions, control-flow and function bodies, strings run as
// code), is judged on its own against the person's allowed/denied prefixes and /regex/ entries.
// Deny beats allow. The judge is conservative: what it cannot prove inert asks, and under deny
// rules, code written into the command that it cannot read is refused (see commandJudge.ts).
import { judgeScript, judgeLatentCode, newContext } from './commandJudge';
import type { CommandJudgement, CommandPart, CommandPolicy, CommandVerdict } from './commandParts';
import { compilePolicy, compileRule } from './commandRules';

export type { CommandJudgement, CommandPart, CommandPolicy, CommandVerdict } from './commandParts';

/** Longer commands are not parsed at all (parsing costs ~1 ms per KB): they ask. */
export const COMMAND_MAX_CHARS = 64 * 1024;

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
  if (command.length > COMMAND_MAX_CHARS) {
    return { verdict: 'ask', parts: [], problem: `the command is too long to check (${thousands(command.length)} characters; the rules read at most ${thousands(COMMAND_MAX_CHARS)})` };
  }
  const ctx = newContext(compilePolicy(policy));
  judgeScript(command, ctx);
  // Data bash may evaluate as code: the substitutions written into it are judged too.
  if (ctx.shared.evaluates && ctx.rules.denied.length > 0) judgeLatentCode(ctx);
  const { parts, problems } = ctx;
  if (parts.length === 0 && problems.length === 0) problems.push('no command found to check');
  const verdict: CommandVerdict = parts.some((p) => p.verdict === 'deny') ? 'deny'
    : problems.length > 0 || parts.some((p) => p.verdict === 'ask') ? 'ask' : 'allow';
  if (problems.length === 0) return { verdict, parts };
  const distinct = [...new Set(problems)];
  const more = distinct.length > 3 ? `; and ${distinct.length - 3} more` : '';
  return { verdict, parts, problem: distinct.slice(0, 3).join('; ') + more };
}

/** 65536 → "65,536" (without loading Intl's locale data, which costs ~50 ms the first time). */
function thousands(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+$)/g, ',');
}

/** What to tell the model when a command is refused by the rules. */
export function describeRefusal(judgement: CommandJudgement): string {
  const denied = judgement.parts.filter((p) => p.verdict === 'deny').map((p) => `\`${p.text}\` (${p.reason})`);
  return `The command was not run: the command rules (toolbelt.runBash) deny ${denied.join(', ')}.`;
}

/** The parts a person is asked about (neither allowed nor denied), each text once. */
export function partsToApprove(judgement: CommandJudgement): CommandPart[] {
  const seen = new Set<string>();
  return judgement.parts.filter((p) => p.verdict === 'ask' && !seen.has(p.text) && seen.add(p.text));
}
