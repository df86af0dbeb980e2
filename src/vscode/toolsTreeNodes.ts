import type { CatalogTool } from '../tools/toolCatalog';
import type { RegisteredTool } from '../tools/toolManager';

/** A row of the Tools tree: the builtins' groups and tools, actions, and the rows of tool sources (sources/sourceTree.ts). */
export type ToolsNode =
  | { kind: 'group'; group: 'active' | 'available' }
  | { kind: 'tool'; group: 'active'; tool: RegisteredTool }
  | { kind: 'tool'; group: 'available'; tool: CatalogTool }
  | { kind: 'action'; label: string; command: string; icon: string }
  | SourceNode;

/** A tool source's row, and its Active and Available groups. */
export type SourceNode = { kind: 'source'; sourceId: string } | { kind: 'sourceGroup'; sourceId: string; group: 'active' | 'available' };
