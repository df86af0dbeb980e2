import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ToolParameters } from '../interface';
import type { SourceTool } from '../toolSource';
import { capDefinition } from './definitionCaps';
import type { McpLimits, McpLogger } from './mcpLimits';

const MAX_LIST_PAGES = 100;

/**
 * Every page of `tools/list` (following `nextCursor`), up to `maxTools`: duplicates, names over
 * maxToolNameChars and the tools past the cap are left out with a warning; a repeated cursor or
 * 100 pages end the paging. Descriptions and schemas are capped (definitionCaps.ts), each cut
 * warned about once per server (`warned` remembers across listings).
 */
export async function listAllTools(client: Client, server: string, limits: McpLimits, logger: McpLogger, warned = new Set<string>()): Promise<readonly SourceTool[]> {
  const warnOnce = (message: string) => {
    // Bounded: a server that keeps changing its tools cannot grow the set (or the log) without end.
    if (warned.has(message) || warned.size >= 500) return;
    warned.add(message);
    logger.warn(message);
  };
  const tools: SourceTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  let leftOut = false;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: limits.listTimeoutMs });
    for (const tool of page.tools) {
      if (tool.name.length > limits.maxToolNameChars) {
        warnOnce(`MCP server "${server}" lists a tool whose name has ${tool.name.length.toLocaleString('en-US')} characters (over ${limits.maxToolNameChars}); it was left out: ${tool.name.slice(0, 60)}…`);
        continue;
      }
      if (seen.has(tool.name)) {
        logger.warn(`MCP server "${server}" lists the tool "${tool.name}" twice; the first stays.`);
        continue;
      }
      if (tools.length >= limits.maxTools) {
        leftOut = true;
        break;
      }
      seen.add(tool.name);
      const listed = toSourceTool(tool, limits);
      for (const notice of listed.notices ?? []) warnOnce(`MCP server "${server}", tool "${tool.name}": ${notice}.`);
      tools.push(listed);
    }
    const next = page.nextCursor;
    cursor = next !== undefined && next !== cursor ? next : undefined;
  } while (cursor !== undefined && !leftOut && ++pages < MAX_LIST_PAGES);
  if (leftOut || cursor !== undefined) {
    logger.warn(`MCP server "${server}" offers more tools than Toolbelt lists; only the first ${tools.length} are available.`);
  }
  return Object.freeze(tools);
}

interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: 'object'; properties?: Record<string, object>; [key: string]: unknown };
  annotations?: { readOnlyHint?: boolean };
}

function toSourceTool(tool: ListedTool, limits: McpLimits): SourceTool {
  const listed = { ...tool.inputSchema, type: 'object', properties: tool.inputSchema.properties ?? {} } as ToolParameters;
  const { description, parameters, notices } = capDefinition(tool.description ?? tool.title ?? '', listed, limits);
  const readOnlyHint = tool.annotations?.readOnlyHint;
  return Object.freeze({
    name: tool.name,
    description,
    parameters,
    ...(typeof readOnlyHint === 'boolean' && { readOnlyHint }),
    ...(notices.length > 0 && { notices: Object.freeze(notices) }),
  });
}
