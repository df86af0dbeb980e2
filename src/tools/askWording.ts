import { revealHiddenCharacters as visible } from '../common/visibleText';
import { isProtectedPath, protectedArea } from './protectedPaths';
import type { ConfirmationReason, ConfirmationRequest } from './types';

/** Every reason a call can ask for (a record, so a new reason cannot be left out). */
const REASON_SET: Readonly<Record<ConfirmationReason, true>> = { destructive: true, protected: true, sensitive: true, command: true, write: true, external: true, unsandboxed: true };
export const CONFIRMATION_REASONS = Object.keys(REASON_SET) as ConfirmationReason[];

// How a question is put to a person, in one place for every way of asking: the panel's card, VS
// Code's confirmation card and dialog, an MCP client's question and the CLI's refusals.

/** Why a call asks, in one line a person can judge. */
export function whyAsked(request: Pick<ConfirmationRequest, 'tool' | 'reason' | 'paths' | 'containment'>): string {
  switch (request.reason) {
    case 'protected':
      return `It changes a protected path: ${whyProtected((request.paths ?? []).find(isProtectedPath) ?? '')}`;
    case 'sensitive':
      return 'The file matches toolbelt.tools.sensitiveFiles: it may hold secrets, and what a tool reads goes to the model.';
    case 'command':
      return `No rule in toolbelt.runBash.allowedCommands covers all of this command.${sandboxNote(request.containment)}`;
    case 'write':
      return 'toolbelt.approvals.writes is "always": every change to a file asks first.';
    case 'external':
      return 'It is a tool from outside Toolbelt (an MCP server or another extension): such tools ask before each call unless the person chose to run it without asking.';
    case 'unsandboxed':
      return 'No OS sandbox is available here, so this command would run with all your access: every command asks, even one a rule allows (toolbelt.sandbox.mode).';
    default:
      return request.tool === 'run_bash'
        ? request.containment
          ? `run_bash asks before every command.${sandboxNote(request.containment)}`
          : 'run_bash asks before every command: a command can do anything your account can.'
        : request.tool === 'remove'
          ? 'remove asks before every call: a deleted file is gone from the disk.'
          : `${visible(request.tool)} asks before every call.`;
  }
}

/** What the OS sandbox leaves a command, for a person deciding whether to let it run. */
function sandboxNote(containment: string | undefined): string {
  if (!containment?.startsWith('sandboxed')) return '';
  return ` It runs ${containment}: it can change files only in this workspace (not .vscode/ or .git/hooks) and cannot read credentials or sensitive files.`;
}

/** Why a path is protected, in one line: what lives there and why a change to it is more than a file edit. */
export function whyProtected(path: string): string {
  switch (protectedArea(path)) {
    case 'git':
      return '.git/ holds the repository itself and its hooks, which run code on every commit.';
    case 'vscode':
      return '.vscode/ holds workspace settings and tasks that change what tools and commands run.';
    case 'workspace-file':
      return 'A .code-workspace file holds workspace settings that change what tools and commands run.';
    case 'agent-config':
      return "It is an agent's own configuration (its hooks, permissions and MCP servers): a change there can take that agent out of this workspace's policy.";
    default:
      return '.git/, .vscode/ and *.code-workspace hold settings and hooks that can run code.';
  }
}

/** A question's title, for VS Code's card and dialog: what will happen, asked. */
export function questionTitle(tool: string, reason: ConfirmationReason): string {
  switch (reason) {
    case 'protected':
      return 'Toolbelt: change a protected path?';
    case 'sensitive':
      return tool === 'read_file' ? 'Toolbelt: read a file that may hold secrets?' : 'Toolbelt: move a file that may hold secrets?';
    case 'command':
      return 'Toolbelt: run this command?';
    case 'unsandboxed':
      return 'Toolbelt: run this command without a sandbox?';
    case 'destructive':
      return tool === 'remove' ? 'Toolbelt: delete this?' : tool === 'run_bash' ? 'Toolbelt: run this command?' : `Toolbelt: run ${visible(tool)}?`;
    case 'external':
      return `Toolbelt: run ${visible(tool)}, a tool from outside Toolbelt?`;
    default:
      return 'Toolbelt: make this change?';
  }
}
