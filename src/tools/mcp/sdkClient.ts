/**
 * The only module that loads `@modelcontextprotocol/sdk` at run time. Nothing imports it directly
 * except through `loadSdkClient()` (loadSdkClient.ts): bundled apart, the SDK loads when the first
 * MCP server starts (docs/ARCHITECTURE.md, "Bundles").
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

export type { Client };

export interface ClientInfo {
  name: string;
  version: string;
}

/** A client whose `onToolsChanged` runs on every `notifications/tools/list_changed`. */
export function createClient(info: ClientInfo, onToolsChanged: () => void): Client {
  const client = new Client(info, { capabilities: {} });
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => onToolsChanged());
  return client;
}

/** Connects (sends `initialize`) over a transport Toolbelt made, e.g. its stdio transport. */
export async function connect(client: Client, transport: Transport, options: RequestOptions): Promise<void> {
  await client.connect(transport, options);
}

/**
 * Connects over HTTP: streamable HTTP first; when the server answers that POST with a 4xx (an
 * older server), over SSE with a fresh client, as the SDK's documentation shows. `sse` goes straight to SSE.
 */
export async function connectHttp(
  makeClient: () => Client,
  url: URL,
  headers: Record<string, string>,
  type: 'http' | 'sse',
  options: RequestOptions,
): Promise<{ client: Client; transport: Transport; via: 'streamable-http' | 'sse' }> {
  const requestInit = { headers };
  if (type === 'http') {
    const client = makeClient();
    const transport = new StreamableHTTPClientTransport(url, { requestInit });
    try {
      await client.connect(transport, options);
      return { client, transport, via: 'streamable-http' };
    } catch (error) {
      await client.close().catch(() => undefined);
      if (!isClientError(error)) throw error;
    }
  }
  const client = makeClient();
  const transport = new SSEClientTransport(url, { requestInit });
  await client.connect(transport, options);
  return { client, transport, via: 'sse' };
}

/** The kinds of failure the caller words differently. */
export function errorKind(error: unknown): 'timeout' | 'closed' | 'server' | 'other' {
  if (!(error instanceof McpError)) return 'other';
  if (error.code === ErrorCode.RequestTimeout) return 'timeout';
  if (error.code === ErrorCode.ConnectionClosed) return 'closed';
  return 'server';
}

function isClientError(error: unknown): boolean {
  return error instanceof StreamableHTTPError && error.code !== undefined && error.code >= 400 && error.code < 500;
}
