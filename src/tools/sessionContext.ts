import type { ToolHandler } from './builtinTool';
import { formatBytes, writableFileStat, writeFileAtomic } from './fileSystem';
import type { ToolContext } from './types';
import { requireConsent, resolveWorkspacePath } from './workspacePaths';

/** The markdown written to the session context file: the live system prompt and summary. */
export function renderSessionContext(ctx: ToolContext, reason: string, now: Date = new Date()): string {
  const summary = ctx.sessionContext.trim() || '_(nothing yet)_';
  const prompt = ctx.systemPrompt.trim() || '_(none)_';
  return [
    '# Session context',
    '',
    `- Saved: ${now.toISOString()}`,
    `- Reason: ${reason.replace(/\s+/g, ' ').trim()}`,
    '',
    '## System prompt',
    '',
    prompt,
    '',
    '## Conversation so far',
    '',
    summary,
    '',
  ].join('\n');
}

export const saveSessionContext: ToolHandler = async (args, ctx, { signal }) => {
  if (!ctx.sessionContextFilePath) throw new Error('No session context file is configured.');
  const target = await resolveWorkspacePath(ctx, ctx.sessionContextFilePath, { signal });
  await writableFileStat(target);
  await requireConsent(ctx, { tool: 'save_session_context', args, summary: `Write ${target.display}`, targets: [target], signal });
  signal?.throwIfAborted();
  const content = renderSessionContext(ctx, args.reason as string);
  await writeFileAtomic(target.absolute, content, signal);
  return `Session context saved to "${target.display}" (${formatBytes(Buffer.byteLength(content))}).`;
};
