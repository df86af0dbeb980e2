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
  /** Characters of one call's result the model gets; the rest is cut with a notice. */
  maxOutputChars: number;
  /** stderr lines kept for crash reports, and the characters kept of each. */
  stderrLines: number;
  stderrLineChars: number;
  /** Stop: wait after closing stdin, and again after SIGTERM, before escalating. */
  killGraceMs: number;
  /** One JSON-RPC message larger than this stops the server. */
  maxMessageBytes: number;
}

export const DEFAULT_MCP_LIMITS: Readonly<McpLimits> = Object.freeze({
  initializeTimeoutMs: 30_000,
  listTimeoutMs: 30_000,
  callTimeoutMs: 120_000,
  maxTools: 500,
  maxOutputChars: 100_000,
  stderrLines: 50,
  stderrLineChars: 1_000,
  killGraceMs: 2_000,
  maxMessageBytes: 32 * 1024 * 1024,
});
