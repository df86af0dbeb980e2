import * as path from 'node:path';
import * as vscode from 'vscode';
import { callGroupsIn } from '../callGroups';
import { ExpectedInvocations } from './expectedInvocations';
import type { ChatTargets } from '../shellHandover';
import type { WorkspaceToolContext } from '../toolContext';
import type { WorkspaceTools } from '../workspaceTools';
import { registerLanguageModelTools } from './languageModelTools';
import { builtinOf } from './lmToolEntries';
import { toolsOffer } from './offeredToolKeys';
import { handleRequest, registerParticipant } from './participant';
import type { Presence } from './presence';

/** A test seam: the values the `toolbelt.tool.<name>.offered` context keys were set to. */
export const OFFERED_COMMAND = 'toolbelt.lmTools.offered';

/** A test seam: runs one @toolbelt turn on a request, history, stream and token the caller makes. */
export const HANDLE_REQUEST_COMMAND = 'toolbelt.nativeChat.handleRequest';
type HandlerArgs = Parameters<typeof handleRequest> extends [...infer Head, unknown] ? Head : never;

/** What Toolbelt in VS Code's own chat needs of the extension. */
export interface NativeChatDeps {
  tools: WorkspaceTools;
  toolContext: WorkspaceToolContext;
  log: vscode.LogOutputChannel;
  /** The shell's stand-ins, registered at activation, that take these implementations. */
  targets: ChatTargets;
  /** The context keys and the model in the picker, set up before the host loaded: they follow the host's tools from now on. */
  presence: Presence;
}

/**
 * Toolbelt in VS Code's own chat, once the host runs: the workspace's tools as `toolbelt_<tool>`
 * language-model tools, offered (by the context keys presence set, which follow the registry from
 * now on) only while the workspace offers them, and `@toolbelt`, Toolbelt's Agent on the model
 * picked in the Chat view. The configured model in the picker is presence's (presence.ts).
 * Cheap: nothing here loads the chat bundle or a provider.
 */
export function registerNativeChat(context: vscode.ExtensionContext, deps: NativeChatDeps): void {
  const { offered } = deps.presence;
  offered.follow(toolsOffer(deps.tools));
  const expected = new ExpectedInvocations();
  const storage = context.storageUri?.scheme === 'file' ? path.join(context.storageUri.fsPath, 'checkpoints') : undefined;
  const groups = callGroupsIn(storage, (message) => deps.log.warn(message));
  const participantDeps = { tools: deps.tools, workspaceRoot: () => deps.toolContext.workspaceRoot, log: deps.log, expected, groups };
  context.subscriptions.push(
    vscode.commands.registerCommand(OFFERED_COMMAND, () => offered.sentValues()),
    registerLanguageModelTools({ tools: deps.tools, context: deps.toolContext, log: deps.log, targets: deps.targets, expected, groups }),
    registerParticipant(context, participantDeps, deps.targets),
    vscode.commands.registerCommand(HANDLE_REQUEST_COMMAND, (...args: HandlerArgs) => handleRequest(...args, participantDeps)),
  );
  registerModels(deps);
}

/**
 * Toolbelt's configured model in VS Code's model picker: presence registered it and listed it; its
 * requests send the workspace's descriptions of the active `toolbelt_*` tools (a settings override
 * included) from now on.
 */
function registerModels(deps: NativeChatDeps): void {
  const registry = deps.tools.manager.registry;
  deps.presence.describeToolsWith((lmName) => {
    const tool = builtinOf(lmName);
    return tool && registry.isToolEnabled(tool) ? registry.get(tool)?.getSchema().function.description : undefined;
  });
}
