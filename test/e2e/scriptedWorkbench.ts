import type { Frame } from 'playwright-core';
import { ModelServer } from '../support/modelServer';
import { Workbench, type WorkbenchOptions } from './workbench';

export interface ScriptedWorkbenchOptions extends WorkbenchOptions {
  /** A scripted server that is already running (a suite's second workbench); otherwise one is started. */
  model?: ModelServer;
  /** Leave the chat unconfigured: no provider, base URL or model in the workspace settings. */
  unconfigured?: boolean;
}

export interface ChatPanelOptions {
  /** How wide the side bar is dragged, in pixels. */
  sidebarWidth: number;
  /** Leave the Tools view expanded under the chat (it is collapsed otherwise, so the chat has the height). */
  toolsExpanded?: boolean;
}

/**
 * A workbench whose chat talks to the scripted model server: `toolbelt.provider` openai at the
 * server's base URL, model `scripted-model`, and a key in the environment. `workspaceSettings`
 * and `env` add to those (and win where they name the same key). A server started here is
 * closed again when the workbench fails to start.
 */
export async function startWithScriptedModel(options: ScriptedWorkbenchOptions = {}): Promise<{ model: ModelServer; workbench: Workbench }> {
  const { model: given, unconfigured, workspaceSettings, env, ...rest } = options;
  const model = given ?? (await ModelServer.start());
  try {
    const chatSettings = unconfigured ? {} : { 'toolbelt.provider': 'openai', 'toolbelt.baseUrl': model.openaiBaseUrl, 'toolbelt.model': 'scripted-model' };
    const workbench = await Workbench.start({
      ...rest,
      workspaceSettings: { ...chatSettings, ...workspaceSettings },
      env: { OPENAI_API_KEY: 'sk-e2e', ...env },
    });
    return { model, workbench };
  } catch (error) {
    if (!given) await model.close();
    throw error;
  }
}

/** Opens Toolbelt, widens the side bar, collapses the Tools view unless asked not to, and returns the chat webview's frame. */
export async function openChat(workbench: Workbench, options: ChatPanelOptions): Promise<Frame> {
  await workbench.openToolbelt();
  await workbench.widenSidebar(options.sidebarWidth);
  if (!options.toolsExpanded) await workbench.setToolsViewExpanded(false);
  return workbench.chatFrame();
}

/** The usual `before` of a chat suite: the scripted server, a workbench pointed at it, and the chat open. */
export async function scriptedChat(options: ScriptedWorkbenchOptions & ChatPanelOptions): Promise<{ model: ModelServer; workbench: Workbench; chat: Frame }> {
  const { sidebarWidth, toolsExpanded, ...start } = options;
  const { model, workbench } = await startWithScriptedModel(start);
  try {
    return { model, workbench, chat: await openChat(workbench, { sidebarWidth, toolsExpanded }) };
  } catch (error) {
    // The suite never sees this workbench, so its `after` cannot close it: a screenshot, then closed here.
    const file = await workbench.screenshot('FAILED-chat-open').catch(() => undefined);
    if (file) console.log(`    screenshot: ${file}`);
    await workbench.close();
    if (!options.model) await model.close();
    throw error;
  }
}

/** The chat panel's input, send, wait-until-idle and tool cards; `frame` is read at each use (a suite sets it in `before`). */
export function chatPanel(frame: () => Frame, idleTimeoutMs = 60_000) {
  const input = () => frame().locator('textarea.message-input');
  return {
    input,
    ask: async (text: string) => {
      await input().fill(text);
      await input().press('Enter');
    },
    idle: () => frame().locator('#toolbelt-chat:not(.busy)').waitFor({ timeout: idleTimeoutMs }),
    card: (tool: string, nth = 0) => frame().locator(`details.tool-card[data-tool="${tool}"]`).nth(nth),
  };
}
