import { CONFIRMATION_REASONS, whyAsked } from '../tools/askWording';
import type { ConfirmationRequest } from '../tools/types';
import { terminalLine } from '../common/visibleText';

export const REASONS = CONFIRMATION_REASONS;

/**
 * The question an MCP client shows the person: the tool, the file or command, and why it asks.
 * What the model wrote (the command, names, paths) stays on its own line, hidden characters and
 * line breaks shown as escapes, so it cannot forge a line of the question or push one out of view.
 */
export function elicitationMessage(request: ConfirmationRequest): string {
  const lines = [`Toolbelt: allow ${terminalLine(request.tool)}?`, terminalLine(request.summary), `Why it asks: ${terminalLine(whyAsked(request))}`];
  if (request.paths?.length) lines.push(`Files: ${request.paths.map(terminalLine).join(', ')}`);
  if (request.parts?.length) lines.push(`Commands no rule allows: ${request.parts.map((part) => `\`${terminalLine(part)}\``).join(', ')}`);
  if (request.containment) lines.push(`It runs ${terminalLine(request.containment)}.`);
  return lines.join('\n');
}

/** How the person can let such a call run when the MCP client cannot ask them. */
function howToAllow(request: ConfirmationRequest): string {
  const ask = 'connect from an MCP client that supports elicitation (it can ask you each time)';
  switch (request.reason) {
    case 'destructive':
      return request.tool === 'run_bash'
        ? `add rules for the commands to toolbelt.runBash.allowedCommands in your own settings file (toolbelt mcp --user-settings FILE), or ${ask}`
        : `${request.tool} asks before every call: ${ask}`;
    case 'command': {
      const parts = request.parts?.length ? ` (${request.parts.map((part) => `\`${part}\``).join(', ')})` : '';
      return `allow the commands${parts} in toolbelt.runBash.allowedCommands of your own settings file (toolbelt mcp --user-settings FILE), accept the workspace's allowed commands with --accept-workspace-commands, or ${ask}`;
    }
    case 'protected':
      return `a protected path changes only with a person's say: ${ask}, or change it yourself`;
    case 'sensitive':
      return `${ask}, or take the file's glob out of toolbelt.tools.sensitiveFiles`;
    case 'write':
      return `${ask}, or stop reviewing every write (toolbelt.approvals.writes)`;
    case 'external':
      return `start toolbelt mcp with --run-without-asking ${request.tool}, or ${ask}`;
    case 'unsandboxed':
      return `${ask}, or make the OS sandbox available on this machine`;
  }
}

/** The error result a client that cannot ask gets: what was refused, why, and how the person can allow it. */
export function cannotAskRefusal(request: ConfirmationRequest): string {
  return (
    `Refused: ${request.summary}. ${whyAsked(request)} This MCP client cannot ask the person ` +
    `(it does not support MCP elicitation), so nothing was done. To allow it: ${howToAllow(request)}.`
  );
}

/** The refusal of `toolbelt run` for a call that would ask and no --approve covers. */
export function unapprovedRefusal(request: ConfirmationRequest): string {
  return (
    `Refused: ${request.summary}. ${whyAsked(request)} toolbelt run asks nobody, so nothing was done. ` +
    `To allow calls like this one, run it again with --approve ${request.reason}.`
  );
}
