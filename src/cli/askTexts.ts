import type { ConfirmationReason, ConfirmationRequest } from '../tools/types';

/** Why a call asks, in words a person reads in an MCP client's dialog or in a refusal. */
export const WHY_IT_ASKS: Readonly<Record<ConfirmationReason, string>> = {
  destructive: 'this tool asks before every call (it deletes files or runs commands)',
  protected: 'it changes a protected path (.git/, .vscode/, *.code-workspace)',
  sensitive: 'the file may hold secrets (toolbelt.tools.sensitiveFiles)',
  command: 'no command rule (toolbelt.runBash.allowedCommands) allows all of it',
  write: 'every write is reviewed (toolbelt.approvals.writes is "always")',
  external: 'it is a tool from outside Toolbelt, which asks before each call',
  unsandboxed: 'the command would run without the OS sandbox',
};

export const REASONS = Object.keys(WHY_IT_ASKS) as ConfirmationReason[];

/** The question an MCP client shows the person: the tool, the file or command, and why it asks. */
export function elicitationMessage(request: ConfirmationRequest): string {
  const lines = [`Toolbelt: allow ${request.tool}?`, request.summary, `Why it asks: ${WHY_IT_ASKS[request.reason]}.`];
  if (request.paths?.length) lines.push(`Files: ${request.paths.join(', ')}`);
  if (request.parts?.length) lines.push(`Commands no rule allows: ${request.parts.map((part) => `\`${part}\``).join(', ')}`);
  if (request.containment) lines.push(`It runs ${request.containment}.`);
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
    `Refused: ${request.summary} — ${WHY_IT_ASKS[request.reason]}. This MCP client cannot ask the person ` +
    `(it does not support MCP elicitation), so nothing was done. To allow it: ${howToAllow(request)}.`
  );
}

/** The refusal of `toolbelt run` for a call that would ask and no --approve covers. */
export function unapprovedRefusal(request: ConfirmationRequest): string {
  return (
    `Refused: ${request.summary} — ${WHY_IT_ASKS[request.reason]}. toolbelt run asks nobody, so nothing was done. ` +
    `To allow calls like this one, run it again with --approve ${request.reason}.`
  );
}
