import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ToolParameters } from '../interface';
import type { SourceTool } from '../toolSource';
import type { McpLimits, McpLogger } from './mcpLimits';

const MAX_LIST_PAGES = 100;

/**
 * Every page of `tools/list` (following `nextCursor`), up to `maxTools`: duplicates and the tools
 * past the cap are left out with a warning; a repeated cursor or 100 pages end the paging.
 */
export async function listAllTools(client: Client, server: string, limits: McpLimits, logger: McpLogger): Promise<readonly SourceTool[]> {
  const tools: SourceTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  let pages = 0;
  let leftOut = false;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: limits.listTimeoutMs });
    for (const tool of page.tools) {
      if (seen.has(tool.name)) {
        logger.warn(`MCP server "${server}" lists the tool "${tool.name}" twice; the first stays.`);
        continue;
      }
      if (tools.length >= limits.maxTools) {
        leftOut = true;
        break;
      }
      seen.add(tool.name);
      tools.push(toSourceTool(tool));
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

function toSourceTool(tool: ListedTool): SourceTool {
  const parameters = { ...tool.inputSchema, type: 'object', properties: tool.inputSchema.properties ?? {} } as ToolParameters;
  const readOnlyHint = tool.annotations?.readOnlyHint;
  return Object.freeze({
    name: tool.name,
    description: tool.description ?? tool.title ?? '',
    parameters,
    ...(typeof readOnlyHint === 'boolean' && { readOnlyHint }),
  });
}
