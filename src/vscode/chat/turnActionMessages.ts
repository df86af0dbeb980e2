import * as vscode from 'vscode';
import type { ChatController } from '../../chat/chatController';
import { changesOfLastTurn, type RewindRequest } from '../../chat/turnRewind';
import type { WebviewMessage } from '../../protocol';

type TurnActionMessage = Extract<WebviewMessage, { type: 'regenerate' | 'editLast' | 'continue' }>;

/**
 * Regenerate, Edit & resend and Continue from the panel. When the answer being replaced changed
 * files, the person chooses first whether to undo those changes: asking again does not undo
 * anything by itself, and the record with its Undo stays in the chat either way.
 * Resolves false when nothing was started (the person cancelled, or it was refused).
 */
export async function runTurnAction(controller: ChatController, message: TurnActionMessage, log: Pick<vscode.LogOutputChannel, 'warn'>): Promise<boolean> {
  let request: RewindRequest = message.type === 'continue' ? { kind: 'continue' } : message.type === 'regenerate' ? { kind: 'regenerate' } : { kind: 'edit', text: message.text };
  if (controller.busy) return false;
  if (request.kind !== 'continue') {
    const { files } = changesOfLastTurn(controller.snapshot());
    if (files.length > 0) {
      const undo = 'Undo Changes First';
      const keep = 'Keep Changes';
      const shown = files.slice(0, 5).join(', ') + (files.length > 5 ? ` and ${files.length - 5} more` : '');
      const choice = await vscode.window.showWarningMessage(
        `The answer you are replacing changed ${files.length} file${files.length === 1 ? '' : 's'}: ${shown}.`,
        { modal: true, detail: `"${undo}" puts them back as they were before that answer, then asks again. "${keep}" leaves them as they are (the model is not told about the earlier answer); its Undo stays in the chat.` },
        undo,
        keep,
      );
      if (!choice) return false;
      request = { ...request, undoFirst: choice === undo };
    }
  }
  // Shown in the transcript (error card with Retry); the log keeps the reason.
  await controller.rewind(request).catch((error: unknown) => log.warn(`${message.type} did not finish: ${error instanceof Error ? error.message : String(error)}`));
  return true;
}
