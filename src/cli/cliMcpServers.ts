import * as path from 'node:path';
import type { SandboxRequest } from '../tools/sandbox';
import {
  definitionHash,
  GOVERNED_MCP_ORIGIN,
  MCP_JSON_ORIGIN,
  mcpServerSet,
  McpServerSource,
  needsApproval,
  readEnvFileText,
  type McpDefinition,
  type McpServerConfig,
  type McpVariableContext,
} from '../tools/mcp';
import type { ToolManager } from '../tools/toolManager';
import type { CliLog } from './cliLog';
import type { LiveSettings } from './liveSettings';
import type { PersonChoices } from './personChoices';
import { terminalJson } from '../common/visibleText';

export const MCP_SERVERS_SETTING = 'toolbelt.mcp.servers';

interface Entry {
  fingerprint: string;
  source: McpServerSource;
  registration: { dispose(): void };
}

/** The environment variable that gives `${input:id}` its value outside VS Code (nobody is asked). */
export function inputVariable(id: string): string {
  return `TOOLBELT_MCP_INPUT_${id.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}

/**
 * The MCP servers a CLI workspace may use: the person's own (`toolbelt.mcp.servers` in their
 * settings file, never the workspace's), which start when a tool needs them, and the servers of
 * `.vscode/mcp.json`, which start only when the person named them with `--approve-server`, and
 * only as they were defined when toolbelt started (their definition hash is pinned then; a changed
 * definition does not start). Re-read when mcp.json or the person's file changes.
 */
export class CliMcpServers {
  private readonly entries = new Map<string, Entry>();
  private readonly pins = new Map<string, string>();
  private loading: Promise<void> = Promise.resolve();

  constructor(
    private readonly manager: ToolManager,
    private readonly settings: LiveSettings,
    private readonly choices: PersonChoices,
    private readonly log: CliLog,
    /** The OS sandbox a stdio server starts in (as run_bash's): read at each start. */
    private readonly sandbox?: () => Omit<SandboxRequest, 'cwd'>,
  ) {}

  /** Reads the definitions and pins the approved ones as they are now. */
  async open(): Promise<void> {
    const { servers } = this.serverSet();
    for (const name of this.choices.approveServers) {
      const definition = servers.get(name);
      // The person's own server needs no approval to start; the flag then only lets it start without a sandbox.
      if (definition && !needsApproval(definition.server)) continue;
      if (!definition) {
        this.log.warn(`--approve-server ${name}: neither ${GOVERNED_MCP_ORIGIN} nor ${MCP_JSON_ORIGIN} defines a server of that name.`);
        continue;
      }
      // The person approves what they can read: the definition as it stands, said before it is pinned.
      this.log.warn(`--approve-server ${terminalJson(name)} approves ${definitionText(definition.server)}`);
      const envFileText = await readEnvFileText(definition.server, this.variables()).catch(() => undefined);
      this.pins.set(name, definitionHash(definition.server, envFileText));
    }
    await this.reload();
  }

  /** Reads every definition again; one reload at a time, in order. */
  reload(): Promise<void> {
    this.loading = this.loading.then(() => this.load(), () => this.load());
    return this.loading;
  }

  sources(): McpServerSource[] {
    return [...this.entries.values()].map((entry) => entry.source);
  }

  async dispose(): Promise<void> {
    await this.loading.catch(() => undefined);
    await Promise.all([...this.entries.keys()].map((name) => this.remove(name)));
  }

  private async load(): Promise<void> {
    const { servers: wanted, problems } = this.serverSet();
    for (const problem of problems) this.log.warn(problem);
    for (const [name, entry] of [...this.entries]) if (wanted.get(name)?.fingerprint !== entry.fingerprint) await this.remove(name);
    for (const [name, definition] of wanted) if (!this.entries.has(name)) this.add(definition);
  }

  /** The servers of the person's settings and the workspace's files, read as the extension reads them (mcpServerSet). */
  private serverSet(): ReturnType<typeof mcpServerSet> {
    const file = (read: { exists: boolean; text: string }) => (read.exists ? read.text : undefined);
    const folder = { root: this.settings.root, governed: file(this.settings.governedMcpJson), mcpJson: file(this.settings.mcpJson) };
    return mcpServerSet(this.settings.current.levels(MCP_SERVERS_SETTING).user, [folder]);
  }

  private add({ server, inputs, fingerprint }: McpDefinition): void {
    const source = new McpServerSource({
      server,
      inputs,
      variables: this.variables(),
      approve: async (config, hash) => this.approve(config, hash),
      approveUnsandboxed: async (config, _hash, detail) => this.approveUnsandboxed(config, detail),
      logger: { info: (m) => this.log.info(m), warn: (m) => this.log.warn(m), error: (m) => this.log.error(m) },
      clientInfo: { name: 'toolbelt', version: '1' },
      ...(this.sandbox ? { sandbox: this.sandbox } : {}),
    });
    const registration = this.manager.addSource(source);
    this.entries.set(server.name, { fingerprint, source, registration });
  }

  private approve(server: McpServerConfig, hash: string): boolean {
    if (!needsApproval(server)) return true;
    const pinned = this.pins.get(server.name);
    if (pinned === hash) return true;
    if (pinned === undefined) this.log.warn(`MCP server "${server.name}" (${server.origin}) was not started: start toolbelt with --approve-server ${server.name} to let it run.`);
    else this.log.warn(`MCP server "${server.name}" (${server.origin}) was not started: its definition changed since toolbelt started; restart toolbelt to approve the new one.`);
    return false;
  }

  /**
   * Without a sandbox here (toolbelt.sandbox.mode "auto"), a server starts only when the person
   * named it with --approve-server, as run_bash asks for each such command; nobody else is there to ask.
   */
  private approveUnsandboxed(server: McpServerConfig, detail: string): boolean {
    if (this.choices.approveServers.has(server.name)) return true;
    this.log.warn(`MCP server "${server.name}" was not started: ${detail}. Start toolbelt with --approve-server ${server.name} to let it run without one, or set toolbelt.sandbox.mode to "off" in your own settings.`);
    return false;
  }

  private variables(): McpVariableContext {
    return {
      workspaceFolder: this.settings.root,
      ...(this.choices.userSettingsFile && { personalFolder: path.dirname(this.choices.userSettingsFile) }),
      resolveInput: async (input) => process.env[inputVariable(input.id)] ?? undefined,
    };
  }

  private async remove(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) return;
    this.entries.delete(name);
    entry.registration.dispose();
    await entry.source.stop().catch((error: unknown) => this.log.warn(`MCP server "${name}" did not stop cleanly: ${String(error)}`));
  }
}

/** One line: where a server is defined and what it runs (or reaches), every value quoted; variables' values are never shown, only their names. */
function definitionText(server: McpServerConfig): string {
  const list = (values: readonly string[]) => `[${values.map((value) => terminalJson(value)).join(', ')}]`;
  if (server.type !== 'stdio') return `the ${server.origin} server: ${server.type} ${terminalJson(server.url)}, headers ${list(Object.keys(server.headers))}.`;
  const parts = [`command ${terminalJson(server.command)}`, `args ${list(server.args)}`, `env names ${list(Object.keys(server.env))}`];
  if (server.envFile !== undefined) parts.push(`envFile ${terminalJson(server.envFile)}`);
  if (server.cwd !== undefined) parts.push(`cwd ${terminalJson(server.cwd)}`);
  return `the ${server.origin} server: ${parts.join(', ')}.`;
}

