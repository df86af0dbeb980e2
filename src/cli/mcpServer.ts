import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type ElicitRequestFormParams, type Tool, type ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCaller } from '../tools/caller';
import { ToolRefusedError } from '../tools/toolErrors';
import type { ConfirmationRequest, ToolRisk } from '../tools/types';
import { cannotAskRefusal, elicitationMessage } from './askTexts';
import type { CliLog } from './cliLog';
import type { CliWorkspace } from './cliWorkspace';

/** How long a person has to answer a question in their MCP client (the SDK's default is a minute). */
const ASK_TIMEOUT_MS = 10 * 60_000;

/**
 * The one answer that lets a call run. The question is a form with one required choice and no
 * default, so a client (or a hook in it) that accepts every form as it comes — empty — approves
 * nothing: only an answer that names this choice does.
 */
const ALLOW_ONCE = 'Allow once';
const APPROVAL_FORM: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: { decision: { type: 'string', title: 'Your decision', enum: [ALLOW_ONCE, 'Deny'] } },
  required: ['decision'],
};

/** What an MCP client reads of a tool's risk: a hint only; the policy decides each call. */
export function annotationsFor(risk: ToolRisk): ToolAnnotations {
  return {
    readOnlyHint: risk === 'read',
    destructiveHint: risk !== 'read',
    openWorldHint: risk === 'exec',
  };
}

/**
 * `toolbelt mcp`: the workspace's active tools over MCP, each call through the same registry as
 * in VS Code (path guard, protected paths, sensitive files, command rules, output caps, the call
 * log, undo records). A call that needs a person's say asks through elicitation when the client
 * declares it; a client that cannot ask gets an error result saying how the person can allow it.
 * The tool list follows the settings and sends `notifications/tools/list_changed`.
 */
export class ToolbeltMcpServer {
  readonly server: Server;
  /** The list the client last saw; undefined until its first tools/list (changes before it are in it). */
  private served: string | undefined;
  private checkScheduled = false;
  private readonly subscription: { dispose(): void };

  constructor(
    private readonly workspace: CliWorkspace,
    private readonly options: { log: CliLog; version: string; builtins?: boolean },
  ) {
    this.server = new Server(
      { name: 'toolbelt', version: options.version },
      {
        capabilities: { tools: { listChanged: true } },
        instructions: "Toolbelt serves this workspace's tools under its policy (.vscode/settings.json). Calls that need the person's say ask through MCP elicitation; without it they are refused with how to allow them.",
      },
    );
    this.server.setRequestHandler(ListToolsRequestSchema, async () => {
      await this.workspace.ready();
      const tools = this.tools();
      this.served = JSON.stringify(tools);
      return { tools };
    });
    this.server.setRequestHandler(CallToolRequestSchema, (request, extra) => this.call(request.params.name, request.params.arguments ?? {}, extra.signal));
    this.subscription = workspace.manager.onDidChange(() => this.scheduleCheck());
  }

  connect(transport: Transport): Promise<void> {
    return this.server.connect(transport);
  }

  async close(): Promise<void> {
    this.subscription.dispose();
    await this.server.close();
  }

  /** The enabled tools as the model sees them: names, schemas from the manifest (or the server), annotations from the risk. */
  tools(): Tool[] {
    const tools: Tool[] = [];
    for (const tool of this.workspace.manager.list()) {
      if (tool.state !== 'ready' || !tool.enabled || !this.serves(tool.type)) continue;
      tools.push({
        name: tool.modelName,
        ...(tool.name !== tool.modelName ? { title: tool.name } : {}),
        description: tool.description,
        inputSchema: tool.parameters as Tool['inputSchema'],
        annotations: annotationsFor(tool.risk),
      });
    }
    return tools;
  }

  /** With --no-builtins only MCP servers' tools are served (VS Code's chat has the builtins as toolbelt_* tools). */
  private serves(type: string): boolean {
    return this.options.builtins !== false || type !== 'builtin';
  }

  /** Who is calling, as the call log and the undo records name it. */
  get clientName(): string {
    return this.server.getClientVersion()?.name || 'MCP client';
  }

  private async call(name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult> {
    await this.workspace.ready();
    const listed = this.workspace.manager.list().find((tool) => tool.state === 'ready' && tool.modelName === name);
    if (listed && !this.serves(listed.type)) {
      return { content: [{ type: 'text', text: `Error: this server offers no tool named "${name}" (--no-builtins).` }], isError: true };
    }
    const chatId = `mcp:${this.clientName}`;
    const group = this.workspace.groups.begin(chatId);
    const caller: ToolCaller = {
      kind: 'mcp',
      label: this.clientName,
      chatId,
      confirm: (request) => this.confirm(request),
      beforeChange: (targets) => group.beforeChange(targets),
    };
    try {
      const result = await this.workspace.manager.registry.run(name, args, { signal, caller });
      const unrecorded = group.unrecorded();
      const text = unrecorded ? `${result.text}\n\n${unrecorded}` : result.text;
      return { content: [{ type: 'text', text }], ...(result.status === 'ok' ? {} : { isError: true }) };
    } finally {
      await group.end();
    }
  }

  /** Asks the person through the client; a client that cannot ask refuses with how to allow it. Nothing that asks runs unasked. */
  private async confirm(request: ConfirmationRequest): Promise<boolean> {
    const elicitation = this.server.getClientCapabilities()?.elicitation as Record<string, unknown> | undefined;
    const canAsk = elicitation !== undefined && (elicitation.form !== undefined || Object.keys(elicitation).length === 0);
    if (!canAsk) throw new ToolRefusedError(cannotAskRefusal(request));
    try {
      const answer = await this.server.elicitInput(
        { mode: 'form', message: elicitationMessage(request), requestedSchema: APPROVAL_FORM },
        { signal: request.signal, timeout: ASK_TIMEOUT_MS },
      );
      const allowed = answer.action === 'accept' && answer.content?.decision === ALLOW_ONCE;
      this.options.log.info(`${this.clientName}: ${request.summary}: ${answer.action}${answer.action === 'accept' ? ` (${allowed ? ALLOW_ONCE : 'no choice of "Allow once": refused'})` : ''}`);
      return allowed;
    } catch (error) {
      if (request.signal?.aborted) throw error;
      throw new ToolRefusedError(`Refused: ${request.summary}: no answer of the MCP client chose "${ALLOW_ONCE}" (${(error as Error).message}). Nothing was done.`);
    }
  }

  /** After a change of the registry (settings, a server's tools), tells the client once the list it saw is no longer the list. */
  private scheduleCheck(): void {
    if (this.served === undefined || this.checkScheduled) return;
    this.checkScheduled = true;
    setImmediate(() => {
      this.checkScheduled = false;
      const now = JSON.stringify(this.tools());
      if (now === this.served) return;
      this.served = now;
      this.server.sendToolListChanged().catch((error: unknown) => this.options.log.warn(`Could not tell the client its tools changed: ${String(error)}`));
    });
  }
}
