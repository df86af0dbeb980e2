import type { ToolCaller } from '../tools/caller';
import type { ChangeTarget, ConfirmationRequest } from '../tools/types';

/** What a chat lends its turns' tool calls. */
export interface PanelChat {
  readonly conversationId: string;
  readonly sessionContext: string;
  confirm(request: ConfirmationRequest): Promise<boolean>;
}

/**
 * A panel chat as the caller of its running turn's tool calls: its cards ask, the turn's checkpoint
 * records undo, its summary is what save_session_context writes, its id files the calls in the log.
 */
export function panelCaller(chat: PanelChat, beforeChange: (targets: readonly ChangeTarget[]) => Promise<void>): ToolCaller {
  return {
    kind: 'panel',
    chatId: chat.conversationId,
    label: 'Toolbelt chat',
    get sessionContext() {
      return chat.sessionContext;
    },
    confirm: (request) => chat.confirm(request),
    beforeChange,
  };
}
