import type { ApplyResult, RegisteredTool, ToggleResult } from '../tools/toolManager';
import type { ToolDefinition } from '../tools/types';
import type { ToolsTreeProvider, TreeRow } from './toolsTree';
import type { WorkspaceTools } from './workspaceTools';

/** What `activate()` returns: the commands' operations, for tests and other extensions. */
export interface ToolbeltApi {
  tools: {
    available(): { tools: ToolDefinition[]; count: number };
    list(): RegisteredTool[];
    enable(name: string): Promise<ToggleResult>;
    disable(name: string): Promise<ToggleResult>;
    /** Warnings and errors from the last time toolbelt.tools.registry was applied. */
    problems(): ApplyResult;
  };
  chat: {
    /** One chat turn through the configured provider with the active tools; resolves with the reply. */
    send(text: string): Promise<string>;
  };
  views: {
    /** The tools tree as plain rows, as a person sees it. */
    toolsTree(): TreeRow[];
  };
  /** Milliseconds `activate()` took, measured inside it. */
  readonly activationMs: number;
}

export interface ChatSender {
  send(text: string): Promise<string>;
}

export function createApi(tools: WorkspaceTools, tree: ToolsTreeProvider, chat: ChatSender, activationMs: number): ToolbeltApi {
  return {
    tools: {
      available: () => tools.available(),
      list: () => tools.list(),
      enable: (name) => tools.enable(name),
      disable: (name) => tools.disable(name),
      problems: () => tools.problems(),
    },
    views: { toolsTree: () => tree.snapshot() },
    chat: { send: (text) => chat.send(text) },
    activationMs,
  };
}
