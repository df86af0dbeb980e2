import { existsSync } from 'node:fs';
import * as vscode from 'vscode';
import type { ChatService } from './chatService';

/** Read-only documents holding what a tool proposes to write, for the diff editor's right side. */
export const PROPOSED_SCHEME = 'toolbelt-proposed';

/**
 * Review of a write waiting for approval: VS Code's diff editor shows the file as it is against
 * the proposed content (a read-only virtual document), and the editor's title bar offers Accept
 * and Reject, which decide the waiting approval as the card's buttons do.
 */
export function registerReviewDiff(context: vscode.ExtensionContext, chat: ChatService, log: vscode.LogOutputChannel): (requestId: string) => Promise<boolean> {
  const proposals = new Map<string, string>();
  const provider: vscode.TextDocumentContentProvider = {
    provideTextDocumentContent: (uri) => proposals.get(requestIdOf(uri)) ?? '',
  };
  const decide = async (uri: vscode.Uri | undefined, decision: 'allow' | 'deny') => {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    if (!target || target.scheme !== PROPOSED_SCHEME) return false;
    const decided = chat.controller.decide(requestIdOf(target), decision);
    if (!decided) void vscode.window.showInformationMessage('Toolbelt: this change was already decided.');
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    return decided;
  };
  context.subscriptions.push(
    vscode.workspace.registerTextDocumentContentProvider(PROPOSED_SCHEME, provider),
    vscode.commands.registerCommand('toolbelt.review.accept', (uri?: vscode.Uri) => decide(uri, 'allow')),
    vscode.commands.registerCommand('toolbelt.review.reject', (uri?: vscode.Uri) => decide(uri, 'deny')),
  );

  return async (requestId) => {
    const proposed = chat.controller.proposedChange(requestId);
    if (!proposed) return false;
    proposals.set(requestId, proposed.content ?? '');
    const right = vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/${requestId}/${proposed.display}` });
    const left = existsSync(proposed.absolute) ? vscode.Uri.file(proposed.absolute) : vscode.Uri.from({ scheme: PROPOSED_SCHEME, path: `/new/${proposed.display}` });
    try {
      await vscode.commands.executeCommand('vscode.diff', left, right, `${proposed.display}: now ↔ proposed by Toolbelt`, { preview: true });
      return true;
    } catch (error) {
      log.warn(`Could not open the review of ${proposed.display}: ${String(error)}`);
      return false;
    }
  };
}

function requestIdOf(uri: vscode.Uri): string {
  return uri.path.split('/')[1] ?? '';
}
