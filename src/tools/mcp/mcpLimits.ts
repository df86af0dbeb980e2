import { LIMITS } from '../manifest';

export interface McpLogger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface McpLimits {
  /** How long a server may take to answer `initialize`. */
  initializeTimeoutMs: number;
  /** How long one `tools/list` page may take. */
  listTimeoutMs: number;
  /** How long one `tools/call` may take. */
  callTimeoutMs: number;
  /** Tools kept from one server; the rest are left out with a warning. */
  maxTools: number;
  /** Characters of one call's result the model gets, notice included; the rest is cut. */
  maxOutputChars: number;
  /** Characters of one tool's description the model gets, notice included. */
  maxDescriptionChars: number;
  /** Bytes of one tool's input schema as JSON; a larger one is cut to its top-level properties. */
  maxSchemaBytes: number;
  /** A tool with a longer name is left out (MCP: names of 1 to 128 characters). */
  maxToolNameChars: number;
  /** stderr lines kept for crash reports, and the characters kept of each. */
  stderrLines: number;
  stderrLineChars: number;
  /** Stop: wait after closing stdin, and again after SIGTERM, before escalating. */
  killGraceMs: number;
  /** A JSON-RPC message up to this size is parsed whole; a larger one is read as it arrives, keeping about this much (messageReader.ts). */
  maxMessageBytes: number;
  /** A line past this size stops the server as soon as it crosses it, whatever it holds. */
  stopMessageBytes: number;
}

export const DEFAULT_MCP_LIMITS: Readonly<McpLimits> = Object.freeze({
  initializeTimeoutMs: 30_000,
  listTimeoutMs: 30_000,
  callTimeoutMs: 120_000,
  maxTools: 500,
  // The cap every outside tool's result has (sourceTool.ts EXTERNAL_OUTPUT_MAX_CHARS): cut once, with the true size.
  maxOutputChars: LIMITS.bashOutputMaxChars,
  maxDescriptionChars: 2_048,
  maxSchemaBytes: 16 * 1024,
  maxToolNameChars: 128,
  stderrLines: 50,
  stderrLineChars: 1_000,
  killGraceMs: 2_000,
  maxMessageBytes: 4 * 1024 * 1024,
  stopMessageBytes: 32 * 1024 * 1024,
});
