import * as vscode from 'vscode';
import { needsApproval, type McpServerConfig } from '../../tools/mcp';
import { approvalQuestion, describeServerDefinition } from './serverDefinitionText';

const APPROVALS_KEY = 'toolbelt.mcp.approvedServers';
export const START_SERVER = 'Start server';
export const NOT_TRUSTED = 'workspace not trusted';
export const DECLINED = 'you did not allow it to start';
export const UNSANDBOXED_DECLINED = 'you did not allow it to run without a sandbox';

/** Asks the person whether a workspace-defined server may start; true to start it. Replaceable in tests (test mode only). */
export type ApprovalPrompt = (request: { server: McpServerConfig; question: string; detail: string; changed: boolean }) => Promise<boolean>;

export const askWithModal: ApprovalPrompt = async ({ question, detail }) =>
  (await vscode.window.showWarningMessage(question, { modal: true, detail }, START_SERVER)) === START_SERVER;

/**
 * The gate every MCP server passes before it starts. The person's own servers (user settings)
 * start at once. A server from the workspace never starts in an untrusted workspace, and asks
 * before its first start and again whenever its definition (its hash) changed; the answer is
 * remembered per workspace as server name → hash.
 */
export class ServerApprovals {
  private readonly denials = new Map<string, string>();
  /** Servers (name → definition hash) the person let start without a sandbox, in this window. */
  private readonly unsandboxed = new Map<string, string>();

  constructor(
    private readonly state: vscode.Memento,
    private readonly isTrusted: () => boolean = () => vscode.workspace.isTrusted,
    public prompt: ApprovalPrompt = askWithModal,
  ) {}

  /** Why the last start of `server` was refused, for its row in the tree; undefined once it was allowed. */
  denial(server: string): string | undefined {
    return this.denials.get(server);
  }

  /** Whether the person approved this exact definition (and the workspace is trusted): nothing is asked. */
  approvedAsIs(server: McpServerConfig, hash: string): boolean {
    if (!needsApproval(server)) return true;
    return this.isTrusted() && this.remembered()[server.name] === hash;
  }

  async approve(server: McpServerConfig, hash: string): Promise<boolean> {
    if (!needsApproval(server)) return this.allow(server);
    if (!this.isTrusted()) return this.deny(server, NOT_TRUSTED);
    const remembered = this.remembered()[server.name];
    if (remembered === hash) return this.allow(server);
    const changed = remembered !== undefined;
    const yes = await this.prompt({ server, question: approvalQuestion(server, changed), detail: describeServerDefinition(server), changed });
    if (!yes) return this.deny(server, DECLINED);
    // Trust may have been revoked while the dialog was open; the answer then does not count.
    if (!this.isTrusted()) return this.deny(server, NOT_TRUSTED);
    await this.state.update(APPROVALS_KEY, { ...this.remembered(), [server.name]: hash });
    return this.allow(server);
  }

  /**
   * No sandbox here and toolbelt.sandbox.mode "auto": the person is asked before the server runs
   * with their account's full powers — their own servers too, as run_bash asks for every such
   * command. The answer holds for this definition in this window (the sandbox may be there next time).
   */
  async approveUnsandboxed(server: McpServerConfig, hash: string, detail: string): Promise<boolean> {
    if (this.unsandboxed.get(server.name) === hash) return this.allow(server);
    const question = `Start MCP server "${server.name}" without a sandbox?`;
    const yes = await this.prompt({ server, question, detail: `No sandbox is available here: ${detail}.\n\n${describeServerDefinition(server)}`, changed: false });
    if (!yes) return this.deny(server, UNSANDBOXED_DECLINED);
    this.unsandboxed.set(server.name, hash);
    return this.allow(server);
  }

  private remembered(): Record<string, string> {
    const value = this.state.get<unknown>(APPROVALS_KEY);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, string>) : {};
  }

  private allow(server: McpServerConfig): boolean {
    this.denials.delete(server.name);
    return true;
  }

  private deny(server: McpServerConfig, reason: string): boolean {
    this.denials.set(server.name, reason);
    return false;
  }
}
