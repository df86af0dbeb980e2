import * as path from 'node:path';
import { canonicalJson } from '../tools/canonicalJson';
import { definitionHash } from '../tools/mcp';
import { GOVERNED_MCP_ORIGIN } from '../tools/mcp';
import type { SandboxRequest } from '../tools/sandbox';
import { MCP_JSON_ORIGIN, parseMcpJson, parseMcpServers, USER_SETTINGS_ORIGIN, type McpInputDefinition, type McpServerConfig } from '../tools/mcp';
import { McpServerSource } from '../tools/mcp';
import { readEnvFileText, type McpVariableContext } from '../tools/mcp';
import type { ToolManager } from '../tools/toolManager';
import type { CliLog } from './cliLog';
import type { LiveSettings } from './liveSettings';
import type { PersonChoices } from './personChoices';
import { terminalJson } from '../common/visibleText';

export const MCP_SERVERS_SETTING = 'toolbelt.mcp.servers';

interface Definition {
  server: McpServerConfig;
  inputs: readonly McpInputDefinition[];
  fingerprint: string;
}

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
    const { definitions } = this.definitions();
    for (const name of this.choices.approveServers) {
      const definition = definitions.find((d) => d.server.name === name && d.server.origin !== USER_SETTINGS_ORIGIN);
      // The person's own server needs no approval to start; the flag then only lets it start without a sandbox.
      if (!definition && definitions.some((d) => d.server.name === name)) continue;
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
    const { definitions, problems } = this.definitions();
    for (const problem of problems) this.log.warn(problem);
    const wanted = new Map<string, Definition>();
    for (const definition of definitions) {
      const first = wanted.get(definition.server.name);
      if (first) this.log.warn(`MCP server "${definition.server.name}" (${definition.server.origin}): ${first.server.origin} defines a server of that name already; this one is left out.`);
      else wanted.set(definition.server.name, definition);
    }
    for (const [name, entry] of [...this.entries]) if (wanted.get(name)?.fingerprint !== entry.fingerprint) await this.remove(name);
    for (const [name, definition] of wanted) if (!this.entries.has(name)) this.add(definition);
  }

  private definitions(): { definitions: Definition[]; problems: string[] } {
    const fromUser = parseMcpServers(this.settings.current.levels(MCP_SERVERS_SETTING).user, USER_SETTINGS_ORIGIN);
    const read = (file: { exists: boolean; text: string }, origin: string) => (file.exists ? parseMcpJson(file.text, origin) : { servers: [], inputs: [], errors: [] });
    // Toolbelt's own file before VS Code's: a server moved there wins over a copy left behind.
    const fromGoverned = read(this.settings.governedMcpJson, GOVERNED_MCP_ORIGIN);
    const fromWorkspace = read(this.settings.mcpJson, MCP_JSON_ORIGIN);
    const definitions = [
      ...fromUser.servers.map((server) => definition(server, fromUser.inputs)),
      ...fromGoverned.servers.map((server) => definition(server, fromGoverned.inputs)),
      ...fromWorkspace.servers.map((server) => definition(server, fromWorkspace.inputs)),
    ];
    return { definitions, problems: [...fromUser.errors, ...fromGoverned.errors, ...fromWorkspace.errors] };
  }

  private add({ server, inputs, fingerprint }: Definition): void {
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
    if (server.origin === USER_SETTINGS_ORIGIN) return true;
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

function definition(server: McpServerConfig, inputs: readonly McpInputDefinition[]): Definition {
  const used = inputs.filter((input) => JSON.stringify(server).includes(`\${input:${input.id}}`));
  return { server, inputs, fingerprint: canonicalJson({ server, inputs: used }) };
}
