import { builtin } from './builtinTool';
import { unasked } from './consent';
import { formatBytes, writableFileStat, writeFileAtomic } from './fileSystem';
import { changeQuestions } from './protectedPaths';
import { resolveWorkspacePath } from './workspacePaths';

/** The markdown written to the session context file: the system prompt and the caller's conversation summary. */
export function renderSessionContext(session: { systemPrompt: string; sessionContext: string }, reason: string, now: Date = new Date()): string {
  const summary = session.sessionContext.trim() || '_(nothing yet)_';
  const prompt = session.systemPrompt.trim() || '_(none)_';
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

export const saveSessionContext = builtin(
  async (_args, ctx, signal) => {
    if (!ctx.sessionContextFilePath) throw new Error('No session context file is configured.');
    const target = await resolveWorkspacePath(ctx, ctx.sessionContextFilePath, { signal });
    await writableFileStat(target);
    const plan = unasked('save_session_context', { target }, [target]);
    plan.questions.push(...changeQuestions(ctx, { tool: 'save_session_context', summary: `Write ${target.display}`, targets: [target], reviewed: false }));
    return plan;
  },
  async (args, ctx, { signal, caller, plan }) => {
    const { target } = plan.prepared;
    // The conversation is the caller's: a panel chat, an @toolbelt request, an MCP client's session.
    const content = renderSessionContext({ systemPrompt: ctx.systemPrompt, sessionContext: caller.sessionContext ?? ctx.sessionContext }, args.reason as string);
    await writeFileAtomic(target.absolute, content, signal);
    return `Session context saved to "${target.display}" (${formatBytes(Buffer.byteLength(content))}).`;
  },
);
