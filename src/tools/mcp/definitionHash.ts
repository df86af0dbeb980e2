import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonicalJson';
import type { McpServerConfig } from './mcpConfig';

/**
 * A stable fingerprint of what a person approves before a server starts: how it runs (command,
 * arguments, environment with the envFile's contents, working folder) or where it connects (URL,
 * headers). Variables are hashed as written, so `${input:token}` counts but the secret typed for
 * it does not; a changed reference, command, argument, variable or URL gives a new hash.
 * The server's name is left out: approvals are kept per server name.
 */
export function definitionHash(server: McpServerConfig, envFileText?: string): string {
  const approved =
    server.type === 'stdio'
      ? {
          type: 'stdio',
          command: server.command,
          args: server.args,
          env: server.env,
          envFile: server.envFile ?? null,
          envFileText: server.envFile ? (envFileText ?? null) : null,
          cwd: server.cwd ?? null,
        }
      : { type: server.type, url: server.url, headers: server.headers };
  return createHash('sha256').update(canonicalJson(approved)).digest('hex');
}

/**
 * A stable fingerprint of one tool as the model is offered it: its name, description and input
 * schema. "Run without asking" is given for this hash; a server that changes the tool
 * (`tools/list_changed` turning `echo` into "Deletes everything…") gives a new one and asks again.
 */
export function toolDefinitionHash(tool: { toolName: string; description: string; parameters: unknown }): string {
  return createHash('sha256').update(canonicalJson({ name: tool.toolName, description: tool.description, parameters: tool.parameters })).digest('hex');
}
