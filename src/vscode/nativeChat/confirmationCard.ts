import * as path from 'node:path';
import { questionTitle, whyAsked } from '../../tools/askWording';
import type { ConsentPlan, ConsentQuestion } from '../../tools/consent';
import { LIMITS } from '../../tools/manifest';
import type { ConfirmationReason } from '../../tools/types';

/** What VS Code's confirmation card shows before a Toolbelt tool runs from another chat. */
export interface ConfirmationCard {
  title: string;
  /** Markdown: exactly what will happen (the command, the paths, the content written) and why it asks. */
  message: string;
}

const PREVIEW_LINES = 20;
const PREVIEW_CHARS = 2000;

/** The strongest reason first: it names the card. */
const TITLE_ORDER: readonly ConfirmationReason[] = ['protected', 'sensitive', 'unsandboxed', 'command', 'destructive', 'external', 'write'];

/**
 * The card for a call's consent plan (the tool's own questions, see src/tools/consent.ts), or
 * undefined when the call asks nobody. `workspaceRoot` names the folder a command runs in.
 */
export function confirmationCard(plan: ConsentPlan, args: Record<string, unknown>, workspaceRoot: string): ConfirmationCard | undefined {
  if (plan.questions.length === 0) return undefined;
  const first = [...plan.questions].sort((a, b) => TITLE_ORDER.indexOf(a.reason) - TITLE_ORDER.indexOf(b.reason))[0];
  const sections = plan.questions.map((question) => section(plan.tool, question, args, workspaceRoot));
  return { title: questionTitle(plan.tool, first.reason), message: sections.join('\n\n---\n\n') };
}

function section(tool: string, question: ConsentQuestion, args: Record<string, unknown>, workspaceRoot: string): string {
  const lines: string[] = [];
  if (tool === 'run_bash') {
    const timeout = typeof args.timeoutSeconds === 'number' ? args.timeoutSeconds : LIMITS.bashDefaultTimeoutSeconds;
    const folder = workspaceRoot ? path.basename(workspaceRoot) : 'the workspace folder';
    lines.push(`Toolbelt's **run_bash** will run this command in \`${folder}\` (stopped after ${timeout} s):\n\n${fence(String(args.command ?? ''), 'sh')}`);
    if (question.parts?.length) lines.push(`No rule in toolbelt.runBash.allowedCommands allows:\n\n${fence(question.parts.join('\n'), 'sh')}`);
  } else {
    lines.push(`Toolbelt's **${tool}**: ${question.summary}.`);
  }
  const content = question.proposed?.content;
  if (content !== undefined) {
    const count = content.split('\n').length;
    lines.push(`${count} line${count === 1 ? '' : 's'}, ${content.length} characters:\n\n${fence(preview(content))}`);
  }
  const why = whyAsked({ tool, reason: question.reason, paths: question.paths, containment: question.containment });
  lines.push(`_${why}_`);
  return lines.join('\n\n');
}

function preview(content: string): string {
  const lines = content.split('\n');
  let shown = lines.slice(0, PREVIEW_LINES).join('\n');
  if (shown.length > PREVIEW_CHARS) shown = shown.slice(0, PREVIEW_CHARS);
  return shown.length < content.length ? `${shown}\n… (${content.length - shown.length} more characters)` : shown;
}

/** A fenced block that a backtick run in the text cannot close early. */
function fence(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${language}\n${text}\n${ticks}`;
}
