import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { McpInputDefinition } from '../../tools/mcp';

/**
 * Gives `${input:id}` values: asked once with an input box (hidden when `password: true`) and
 * kept in SecretStorage under a key per workspace and id. Concurrent starts needing the same
 * input share one question.
 */
export class McpInputs {
  private readonly asking = new Map<string, Promise<string | undefined>>();

  constructor(private readonly secrets: vscode.SecretStorage) {}

  readonly resolve = (input: McpInputDefinition): Promise<string | undefined> => {
    const key = secretKey(input.id);
    let pending = this.asking.get(key);
    if (!pending) {
      pending = this.lookUpOrAsk(key, input).finally(() => this.asking.delete(key));
      this.asking.set(key, pending);
    }
    return pending;
  };

  /** Forgets every stored value of this workspace's inputs named in `ids`. */
  async forget(ids: readonly string[]): Promise<void> {
    for (const id of ids) await this.secrets.delete(secretKey(id));
  }

  private async lookUpOrAsk(key: string, input: McpInputDefinition): Promise<string | undefined> {
    const stored = await this.secrets.get(key);
    if (stored !== undefined) return stored;
    const value = await vscode.window.showInputBox({
      title: `Toolbelt: MCP input "${input.id}"`,
      prompt: input.description,
      password: input.password,
      ignoreFocusOut: true,
    });
    if (value !== undefined) await this.secrets.store(key, value);
    return value;
  }
}

/** `toolbelt.mcp.input.<workspace>.<id>`: one workspace's value never serves another's server. */
function secretKey(id: string): string {
  const workspace = vscode.workspace.workspaceFile?.toString() ?? vscode.workspace.workspaceFolders?.[0]?.uri.toString() ?? 'no-workspace';
  return `toolbelt.mcp.input.${createHash('sha256').update(workspace).digest('hex').slice(0, 16)}.${id}`;
}
