import * as path from 'node:path';
import { LIMITS } from '../../tools/manifest';
import { sensitiveGlobFor } from '../../tools/sensitiveFiles';
import type { ConfirmationReason, ToolContext } from '../../tools/types';
import { isProtectedPath, resolveWorkspacePath, type ResolvedPath } from '../../tools/workspacePaths';

/**
 * What VS Code's confirmation card asks before a Toolbelt tool runs from another chat, and which
 * of the tool's own questions that card answers (so the person is asked once, not twice).
 */
export interface ConfirmationPlan {
  tool: string;
  /** The reasons the tool would ask for that the card covers. */
  reasons: ConfirmationReason[];
  title: string;
  /** Markdown: exactly what will happen (the command, the paths, the content written). */
  message: string;
}

/** Files whose every write asks when the person chose to review all writes (as the tools do). */
const REVIEWED_WRITES = new Set(['write_file', 'move', 'remove', 'mkdir']);
const PROTECTED_NOTE = 'a protected path (.git/, .vscode/ or *.code-workspace)';
const PREVIEW_LINES = 20;
const PREVIEW_CHARS = 2000;

/**
 * The card for one call, or undefined when the call asks nobody: every `remove` and `run_bash`,
 * every write to a protected path, every read of a sensitive file, and every write when
 * `writeApprovals` is `always`. A path that does not resolve asks nothing: the tool refuses it.
 */
export async function planConfirmation(tool: string, args: Record<string, unknown>, ctx: ToolContext): Promise<ConfirmationPlan | undefined> {
  const review = ctx.writeApprovals === 'always' && REVIEWED_WRITES.has(tool);
  switch (tool) {
    case 'run_bash':
      return runBashPlan(args, ctx);
    case 'remove':
      return removePlan(args, ctx, review);
    case 'write_file':
      return writePlan(args, ctx, review);
    case 'mkdir':
      return pathPlan(tool, await resolved(ctx, args.path), review, (display) => `Create the folder \`${display}\``);
    case 'save_session_context':
      return pathPlan(tool, await resolved(ctx, ctx.sessionContextFilePath), false, (display) => `Write the conversation summary to \`${display}\``);
    case 'move':
      return movePlan(args, ctx, review);
    case 'read_file':
      return readPlan(args, ctx);
    default:
      return undefined;
  }
}

async function runBashPlan(args: Record<string, unknown>, ctx: ToolContext): Promise<ConfirmationPlan> {
  const command = typeof args.command === 'string' ? args.command : String(args.command ?? '');
  const timeout = typeof args.timeoutSeconds === 'number' ? args.timeoutSeconds : LIMITS.bashDefaultTimeoutSeconds;
  const folder = ctx.workspaceRoot ? path.basename(ctx.workspaceRoot) : 'the workspace folder';
  return {
    tool: 'run_bash',
    reasons: ['destructive', 'command'],
    title: 'Toolbelt: run this command?',
    message: `Toolbelt's **run_bash** will run this command in \`${folder}\` (stopped after ${timeout} s):\n\n${fence(command, 'sh')}`,
  };
}

async function removePlan(args: Record<string, unknown>, ctx: ToolContext, review: boolean): Promise<ConfirmationPlan> {
  const target = await resolved(ctx, args.path, false);
  const display = target?.display ?? String(args.path ?? '');
  const reasons: ConfirmationReason[] = ['destructive'];
  if (target && isProtectedPath(target.relative)) reasons.push('protected');
  if (review) reasons.push('write');
  const recursive = args.recursive === true ? ' and everything in it' : '';
  const note = reasons.includes('protected') ? `\n\nThis is ${PROTECTED_NOTE}.` : '';
  return { tool: 'remove', reasons, title: 'Toolbelt: delete this?', message: `Toolbelt's **remove** will delete \`${display}\`${recursive}.${note}` };
}

async function writePlan(args: Record<string, unknown>, ctx: ToolContext, review: boolean): Promise<ConfirmationPlan | undefined> {
  const target = await resolved(ctx, args.path);
  const content = typeof args.content === 'string' ? args.content : '';
  return pathPlan('write_file', target, review, (display) => {
    const verb = target?.exists ? 'replace the contents of' : 'create';
    const lines = content.split('\n').length;
    return `Toolbelt's **write_file** will ${verb} \`${display}\` (${lines} line${lines === 1 ? '' : 's'}, ${content.length} characters):\n\n${fence(preview(content))}`;
  });
}

function pathPlan(tool: string, target: ResolvedPath | undefined, review: boolean, describe: (display: string) => string): ConfirmationPlan | undefined {
  if (!target) return undefined;
  const reasons: ConfirmationReason[] = [];
  if (isProtectedPath(target.relative)) reasons.push('protected');
  if (review) reasons.push('write');
  if (reasons.length === 0) return undefined;
  const note = reasons.includes('protected') ? `\n\n\`${target.display}\` is ${PROTECTED_NOTE}.` : '';
  const title = reasons.includes('protected') ? 'Toolbelt: change a protected path?' : 'Toolbelt: make this change?';
  return { tool, reasons, title, message: `${describe(target.display)}${note}` };
}

async function movePlan(args: Record<string, unknown>, ctx: ToolContext, review: boolean): Promise<ConfirmationPlan | undefined> {
  const source = await resolved(ctx, args.source, false);
  const destination = await resolved(ctx, args.destination, false);
  if (!source || !destination) return undefined;
  const reasons: ConfirmationReason[] = [];
  if (isProtectedPath(source.relative) || isProtectedPath(destination.relative)) reasons.push('protected');
  if (sensitiveGlobFor(ctx.sensitiveGlobs, [source.relative]) !== undefined) reasons.push('sensitive');
  if (review) reasons.push('write');
  if (reasons.length === 0) return undefined;
  const replacing = destination.exists ? ' (replacing what is there)' : '';
  const notes = [
    reasons.includes('protected') ? `It touches ${PROTECTED_NOTE}.` : '',
    reasons.includes('sensitive') ? `\`${source.display}\` may hold secrets (toolbelt.tools.sensitiveFiles).` : '',
  ].filter(Boolean);
  return {
    tool: 'move',
    reasons,
    title: 'Toolbelt: move this?',
    message: `Toolbelt's **move** will move \`${source.display}\` to \`${destination.display}\`${replacing}.${notes.length ? `\n\n${notes.join(' ')}` : ''}`,
  };
}

async function readPlan(args: Record<string, unknown>, ctx: ToolContext): Promise<ConfirmationPlan | undefined> {
  const target = await resolved(ctx, args.path);
  if (!target) return undefined;
  const given = typeof args.path === 'string' ? path.posix.normalize(args.path.split(path.sep).join('/')).replace(/^(\.\/)+/, '') : '';
  const glob = sensitiveGlobFor(ctx.sensitiveGlobs, [target.relative, given]);
  if (glob === undefined) return undefined;
  return {
    tool: 'read_file',
    reasons: ['sensitive'],
    title: 'Toolbelt: read a file that may hold secrets?',
    message: `Toolbelt's **read_file** will read \`${target.display}\` and give its contents to the model. It matches \`${glob}\` in toolbelt.tools.sensitiveFiles, so it may hold secrets.`,
  };
}

async function resolved(ctx: ToolContext, input: unknown, followFinalLink = true): Promise<ResolvedPath | undefined> {
  try {
    return await resolveWorkspacePath(ctx, input, { followFinalLink });
  } catch {
    return undefined;
  }
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
