import type { ToolParameters } from './interface';
import type { CatalogTool, SourceInfo } from './toolCatalog';
import type { ToolRisk } from './types';

/** A registered tool whose source offers it now: its catalog entry, its live description, its state. */
export type ReadyTool = CatalogTool & {
  enabled: boolean;
  /** The description came from the settings entry rather than the tool's source. */
  descriptionOverridden: boolean;
  state: 'ready';
  /** Tools from outside only: the person lets this definition of it run without asking. */
  runWithoutAsking?: boolean;
  /** "Run without asking" was chosen for another definition (the tool changed since): it asks again. */
  runWithoutAskingLapsed?: boolean;
};

/** A registered name whose source is not running yet: kept, shown as waiting, never offered to the model. */
export interface WaitingTool {
  /** As the entry names it: `github/create_issue`, `github/*`, an extension tool's name. */
  name: string;
  /** The name the model will see; absent for `<server>/*`. */
  modelName?: string;
  type: 'mcp' | 'extension';
  /** The entry's own description, or empty until the source tells. */
  description: string;
  parameters: ToolParameters;
  risk: ToolRisk;
  enabledByDefault: boolean;
  source: SourceInfo;
  /** Always false: nothing waiting is offered to the model. */
  enabled: false;
  descriptionOverridden: boolean;
  state: 'waiting';
  /** Why, for the tree and the log: `github has not started yet`, `github failed: …`. */
  reason: string;
  runWithoutAsking?: boolean;
}

export type RegisteredTool = ReadyTool | WaitingTool;
