import type { AgentId } from '../tools/agents';
import type { CatalogTool } from '../tools/toolCatalog';
import type { RegisteredTool } from '../tools/toolManager';

/** A row of the Tools tree: the builtins' groups and tools, actions, and the rows of tool sources (sources/sourceTree.ts). */
export type ToolsNode =
  | { kind: 'group'; group: 'active' | 'available' }
  | { kind: 'tool'; group: 'active'; tool: RegisteredTool }
  | { kind: 'tool'; group: 'available'; tool: CatalogTool }
  | { kind: 'action'; label: string; command: string; icon: string }
  | SourceNode
  | AgentsNode;

/** A tool source's row, and its Active and Available groups. */
export type SourceNode = { kind: 'source'; sourceId: string } | { kind: 'sourceGroup'; sourceId: string; group: 'active' | 'available' };

/** The Agents section's rows (toolsTreeAgents.ts): the section, each agent, its loss report's rules, its recent decisions, notes. */
export type AgentsNode =
  | { kind: 'agents' }
  | { kind: 'agent'; agent: AgentId }
  | { kind: 'agentRule'; agent: AgentId; index: number }
  | { kind: 'agentDecisions'; agent: AgentId }
  | { kind: 'agentDecision'; agent: AgentId; index: number }
  | { kind: 'agentNote'; agent: AgentId | undefined; text: string; icon: string; command?: string };
