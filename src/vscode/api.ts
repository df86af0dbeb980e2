import type { ContextMeter } from '../protocol';
import type { ToolCallRecord } from '../tools/toolCallLog';
import type { ApplyResult, RegisteredTool, ToggleResult } from '../tools/toolManager';
import type { CatalogTool } from '../tools/toolCatalog';
import type { TrustRulesView } from './toolContext';
import type { ToolLogReader } from './toolLog';
import type { ToolsTreeProvider, TreeRow } from './toolsTree';
import type { WorkspaceTools } from './workspaceTools';

/** What `activate()` returns: the commands' operations, for tests and other extensions. */
export interface ToolbeltApi {
  tools: {
    available(): { tools: CatalogTool[]; count: number };
    list(): RegisteredTool[];
    enable(name: string): Promise<ToggleResult>;
    disable(name: string): Promise<ToggleResult>;
    /** Warnings and errors from the last time toolbelt.tools.registry was applied. */
    problems(): ApplyResult;
    /** Every tool call in the log (this workspace's current file and the one before it), newest last. */
    log(): Promise<ToolCallRecord[]>;
    /** The sensitive-file globs and run_bash command rules the tools follow now (settings, trust and acceptance applied). */
    policy(): TrustRulesView;
  };
  chat: {
    /** One chat turn through the configured provider with the active tools; resolves with the reply. */
    send(text: string): Promise<string>;
    /** Puts back what the newest turn of the current chat changed; files changed since are skipped. */
    undoLastTurn(): Promise<{ restored: string[]; skipped: string[] }>;
    /** How full the model's context window was for the current chat's latest request (the header's meter). */
    context(): ContextMeter | undefined;
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
  undoLastTurn(): Promise<{ restored: string[]; skipped: string[] }>;
  context(): ContextMeter | undefined;
}

export function createApi(tools: WorkspaceTools, tree: ToolsTreeProvider, chat: ChatSender, activationMs: number, toolLog: ToolLogReader, rules?: { describeRules(): TrustRulesView }): ToolbeltApi {
  return {
    tools: {
      available: () => tools.available(),
      list: () => tools.list(),
      enable: (name) => tools.enable(name),
      disable: (name) => tools.disable(name),
      problems: () => tools.problems(),
      log: () => toolLog.log(),
      policy: () => {
        if (!rules) throw new Error('The tool context was not passed to createApi, so its rules cannot be shown.');
        return rules.describeRules();
      },
    },
    views: { toolsTree: () => tree.snapshot() },
    chat: { send: (text) => chat.send(text), undoLastTurn: () => chat.undoLastTurn(), context: () => chat.context() },
    activationMs,
  };
}
