import type { ChatProvider } from '../providers/types';
import { createDefaultToolRegistry } from '../tools/factory';
import type { ExecutableTool } from '../tools/interface';
import type { ToolRegistry } from '../tools/registry';
import type { ToolContext } from '../tools/types';
import { AgentLoop, type AgentLoopOptions, type AgentSettings } from './agentLoop';

export {
  AgentLoop,
  ANSWER_CUT_NOTICE,
  DEFAULT_MAX_TOOL_ROUNDS,
  DEFAULT_SESSION_CONTEXT_FILE,
  DEFAULT_SYSTEM_PROMPT,
  MAX_ANSWER_CHARS,
  MAX_TOOL_CALLS_PER_REPLY,
} from './agentLoop';
export type { AgentEvent, AgentLoopOptions, AgentSettings, ToolCallStatus, TurnOptions } from './agentLoop';

export interface AgentOptions extends AgentSettings {
  /** The tools to offer and run; without one, the default registry (every builtin, `remove` and `run_bash` off). */
  toolRegistry?: ToolRegistry;
}

/**
 * The Agent for plain Node: the chat / tool-call loop (AgentLoop) over a ToolRegistry, the
 * default one when none is given, with conveniences to change its tools.
 */
export class Agent extends AgentLoop {
  declare readonly toolRegistry: ToolRegistry;

  constructor(provider: ChatProvider, options: AgentOptions = {}) {
    // A missing registry is filled in by defaultToolRegistry below.
    super(provider, options as AgentLoopOptions);
  }

  protected override defaultToolRegistry(context: ToolContext): ToolRegistry {
    return createDefaultToolRegistry(context);
  }

  addTool(tool: ExecutableTool): void {
    this.toolRegistry.register(tool);
  }

  removeTool(name: string): void {
    this.toolRegistry.unregister(name);
  }

  enableTool(name: string): void {
    this.toolRegistry.enable(name);
  }

  disableTool(name: string): void {
    this.toolRegistry.disable(name);
  }
}
