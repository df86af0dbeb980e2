import type { SourceState } from '../../tools/toolSource';

// What the tools tree says about sources and their tools, as plain text (no vscode import, unit-tested).

/** A server's state as its row's description: "not started", "running · 3 tools", "failed: exited with code 1". */
export function sourceStateText(state: SourceState, toolCount: number): string {
  switch (state.state) {
    case 'not-started':
      return 'not started';
    case 'starting':
      return 'starting…';
    case 'running':
      return `running · ${toolCount} ${toolCount === 1 ? 'tool' : 'tools'}`;
    case 'stopped':
      return 'stopped';
    case 'failed':
      return `failed: ${state.reason}`;
  }
}

/** The `viewItem` of a server's row, which the start/stop/restart menus test: `toolbelt.mcpServer.notStarted`. */
export function sourceContextValue(state: SourceState): string {
  const camel = state.state.replace(/-(\w)/g, (_, c: string) => c.toUpperCase());
  return `toolbelt.mcpServer.${camel}`;
}

export interface ExternalRowFacts {
  waiting?: string;
  locked: boolean;
  runWithoutAsking: boolean;
  /** "Run without asking" was chosen for an earlier definition of the tool. */
  lapsed?: boolean;
  readOnlyHint?: boolean;
  problem?: string;
  /** What Toolbelt cut of the tool's definition (ExternalCatalogTool.notices). */
  notices?: readonly string[];
}

/** The description of a tool from outside Toolbelt: how it runs, what its source claims, what went wrong. */
export function externalToolText(facts: ExternalRowFacts): string {
  const parts: string[] = [];
  if (facts.waiting) parts.push(`waiting: ${facts.waiting}`);
  else if (facts.locked) parts.push('needs a trusted workspace');
  else parts.push(facts.runWithoutAsking ? 'runs without asking' : facts.lapsed ? 'asks again: its definition changed' : 'asks before each call');
  // A claim, shown as one: the tool is still treated as able to change anything.
  if (facts.readOnlyHint) parts.push('says read-only');
  const cut = cutLabel(facts.notices);
  if (cut) parts.push(`⚠ ${cut}`);
  if (facts.problem) parts.push(`⚠ ${facts.problem}`);
  return parts.join(' · ');
}

/** "description cut", "description and schema cut": what a row says of the definition's cuts (the tooltip has the detail). */
export function cutLabel(notices: readonly string[] | undefined): string | undefined {
  if (!notices || notices.length === 0) return undefined;
  const what = [...new Set(notices.map((n) => (n.startsWith('description') ? 'description' : n.startsWith('input schema') ? 'schema' : 'definition')))];
  return `${what.join(' and ')} cut`;
}

/** The tooltip's sentence for a choice that lapsed. */
export const LAPSED_TEXT =
  '"Run without asking" was chosen for an earlier definition of this tool (its name, description or input schema has changed since): it asks before each call until you choose it again.';

/** The first problem of the last settings resolution that names this tool, shortened for a row. */
export function problemNaming(name: string, problems: { warnings: readonly string[]; errors: readonly string[] }): string | undefined {
  const quoted = `"${name}"`;
  const message = [...problems.errors, ...problems.warnings].find((m) => m.includes(quoted));
  if (!message) return undefined;
  if (/would reach the model as/.test(message)) return 'name clash (see the log)';
  if (/duplicate/.test(message)) return 'duplicate entry';
  const short = message.replace(/^toolbelt\.tools\.registry\[\d+\][^:]*:\s*/, '');
  return short.length > 60 ? `${short.slice(0, 57)}…` : short;
}
