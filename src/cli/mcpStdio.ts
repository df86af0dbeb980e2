import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { MessageReader, type MessageCut } from '../tools/mcp';
import { terminalJson } from '../common/visibleText';

/** The largest message `toolbelt mcp` reads whole: the SDK's stdio limit, which ended the server when passed. */
export const MAX_CLIENT_MESSAGE_BYTES = 10 * 1024 * 1024;

/** What is kept of a larger message while it is read past: enough for its `id` and `method`. */
const OVERSIZED_KEPT = { stringChars: 1_024, keptChars: 4_096, depth: 4 };

/**
 * `toolbelt mcp`'s side of stdio: newline-delimited JSON-RPC from the client as the SDK's
 * StdioServerTransport reads it, except that a message over MAX_CLIENT_MESSAGE_BYTES does not end
 * the connection. It is read as it arrives without being kept (the MCP client side's MessageReader);
 * a request gets a JSON-RPC error and the server goes on serving; an answer to one of the server's
 * own requests (an elicitation) becomes an error for that request; a notification is dropped.
 */
export class BoundedStdioServerTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly reader: MessageReader;
  private cut: MessageCut | undefined;
  private started = false;
  private closed = false;

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
    private readonly options: { warn(message: string): void },
  ) {
    this.reader = new MessageReader(
      { maxMessageBytes: MAX_CLIENT_MESSAGE_BYTES, oversized: OVERSIZED_KEPT },
      {
        message: (message) => this.receive(message),
        malformed: (line) => this.onerror?.(new Error(`The MCP client sent a line that is not JSON-RPC: ${JSON.stringify(line.slice(0, 200))}`)),
        oversized: (cut) => (this.cut = cut),
      },
    );
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('The stdio transport was started already.');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStreamError);
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.onclose?.();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    this.reader.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  };

  private readonly onStreamError = (error: Error): void => {
    this.onerror?.(error);
  };

  private receive(value: JSONRPCMessage): void {
    const cut = this.cut;
    this.cut = undefined;
    if (cut) return this.refuse(value as Partial<Record<'id' | 'method', unknown>>, cut.bytes);
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) return this.onerror?.(new Error(`The MCP client sent a message that is not JSON-RPC: ${parsed.error.message}`));
    this.onmessage?.(parsed.data);
  }

  private refuse(message: Partial<Record<'id' | 'method', unknown>>, bytes: number): void {
    const size = `${bytes.toLocaleString('en-US')} bytes`;
    const limit = `${MAX_CLIENT_MESSAGE_BYTES.toLocaleString('en-US')} bytes`;
    const method = typeof message.method === 'string' ? ` (${terminalJson(message.method.slice(0, 100))})` : '';
    this.options.warn(`The MCP client sent a message of ${size}${method}, over the ${limit} toolbelt mcp reads; it was refused unread and serving goes on.`);
    if (!isRequestId(message.id)) return;
    const text = `The message is ${size}; toolbelt mcp reads messages up to ${limit}. It was not read.`;
    const error = { code: ErrorCode.InvalidRequest, message: text };
    // A request is answered; an answer to the server's own request fails that request.
    if (typeof message.method === 'string') void this.send({ jsonrpc: '2.0', id: message.id, error });
    else this.onmessage?.({ jsonrpc: '2.0', id: message.id, error });
  }
}

function isRequestId(id: unknown): id is RequestId {
  return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));
}
