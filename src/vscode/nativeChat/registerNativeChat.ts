import * as path from 'node:path';
import * as vscode from 'vscode';
import { CallGroups } from '../callGroups';
import { ExpectedInvocations } from './expectedInvocations';
import type { ApiKeys } from '../apiKeys';
import type { ChatTargets } from '../shellHandover';
import type { SettingsWatcher } from '../settings';
import type { WorkspaceToolContext } from '../toolContext';
import type { WorkspaceTools } from '../workspaceTools';
import { registerLanguageModelTools } from './languageModelTools';
import { builtinOf } from './lmToolEntries';
import { OfferedToolKeys } from './offeredToolKeys';
import { handleRequest, registerParticipant } from './participant';
import { ToolbeltModelProvider, VENDOR } from './toolbeltModelProvider';

/** A test seam: the values the `toolbelt.tool.<name>.offered` context keys were set to. */
export const OFFERED_COMMAND = 'toolbelt.lmTools.offered';

/** A test seam: runs one @toolbelt turn on a request, history, stream and token the caller makes. */
export const HANDLE_REQUEST_COMMAND = 'toolbelt.nativeChat.handleRequest';
type HandlerArgs = Parameters<typeof handleRequest> extends [...infer Head, unknown] ? Head : never;

/** What Toolbelt in VS Code's own chat needs of the extension. */
export interface NativeChatDeps {
  tools: WorkspaceTools;
  toolContext: WorkspaceToolContext;
  keys: ApiKeys;
  watcher: SettingsWatcher;
  log: vscode.LogOutputChannel;
  /** The shell's stand-ins, registered at activation, that take these implementations. */
  targets: ChatTargets;
}

/**
 * Toolbelt in VS Code's own chat: the workspace's tools as `toolbelt_<tool>` language-model
 * tools, offered (by context keys the `when` clauses read) only while the workspace offers them,
 * `@toolbelt`, Toolbelt's Agent on the model picked in the Chat view, and the configured model
 * as vendor `toolbelt` in VS Code's model picker.
 * Cheap: nothing here loads the chat bundle or a provider.
 */
export function registerNativeChat(context: vscode.ExtensionContext, deps: NativeChatDeps): void {
  const offered = new OfferedToolKeys(deps.tools, deps.log);
  const expected = new ExpectedInvocations();
  const storage = context.storageUri?.scheme === 'file' ? path.join(context.storageUri.fsPath, 'checkpoints') : undefined;
  const groups = new CallGroups(storage, (message) => deps.log.warn(message));
  const participantDeps = { tools: deps.tools, workspaceRoot: () => deps.toolContext.workspaceRoot, log: deps.log, expected, groups };
  context.subscriptions.push(
    offered,
    vscode.commands.registerCommand(OFFERED_COMMAND, () => offered.sentValues()),
    registerLanguageModelTools({ tools: deps.tools, context: deps.toolContext, log: deps.log, targets: deps.targets, expected, groups }),
    registerParticipant(context, participantDeps, deps.targets),
    vscode.commands.registerCommand(HANDLE_REQUEST_COMMAND, (...args: HandlerArgs) => handleRequest(...args, participantDeps)),
  );
  registerModels(context, deps);
}

/** Toolbelt's configured model in VS Code's model picker (VS Code 1.104+; nothing on older ones). */
function registerModels(context: vscode.ExtensionContext, deps: NativeChatDeps): void {
  const registry = deps.tools.manager.registry;
  const descriptionOf = (lmName: string) => {
    const tool = builtinOf(lmName);
    return tool && registry.isToolEnabled(tool) ? registry.get(tool)?.getSchema().function.description : undefined;
  };
  const provider = new ToolbeltModelProvider(deps.keys, deps.watcher, descriptionOf);
  const registration = deps.targets.chatProvider(VENDOR, provider);
  context.subscriptions.push(provider);
  if (!registration) {
    deps.log.info(`This VS Code (${vscode.version}) cannot list Toolbelt's model in its model picker; 1.104 or later can.`);
    return;
  }
  context.subscriptions.push(registration);
  // The picker lists a vendor's models only once something has asked for them; asking here, after
  // activation, fills it in a fresh window without delaying anything.
  setTimeout(() => {
    vscode.lm.selectChatModels({ vendor: VENDOR }).then(
      (models) => deps.log.info(`VS Code's model picker lists ${models.map((m) => m.name).join(', ') || 'no Toolbelt model'}.`),
      (error: unknown) => deps.log.warn(`Could not list Toolbelt's model in VS Code: ${String(error)}`),
    );
  }, 0);
}
