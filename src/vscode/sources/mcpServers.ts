import * as vscode from 'vscode';
import { GOVERNED_MCP_FILE, mcpServerSet, McpServerSource, type McpDefinition, type McpFolderFiles, type McpServerConfig, type McpServerSourceOptions } from '../../tools/mcp';
import type { ToolSource } from '../../tools/toolSource';
import { Disposables, DisposableStore } from '../dispose';
import { MCP_SERVERS_KEY, readUserMcpServers, SECTION } from '../settings';
import type { WorkspaceTools } from '../workspaceTools';
import { EXTENSIONS_SOURCE_ID } from './extensionTools';
import { GuardedSource } from './guardedSource';
import type { McpInputs } from './mcpInputs';
import type { McpLogs } from './mcpLogs';
import { NOT_TRUSTED, type ServerApprovals } from './serverApprovals';

interface Entry {
  fingerprint: string;
  server: McpServerConfig;
  source: GuardedSource;
  registration: vscode.Disposable;
}

export interface McpServersOptions {
  approvals: ServerApprovals;
  inputs: McpInputs;
  logs: McpLogs;
  log: vscode.LogOutputChannel;
  /** The OS sandbox stdio servers start in (the workspace's toolbelt.sandbox.* and folders). */
  sandbox?: McpServerSourceOptions['sandbox'];
  /** The folder of the person's settings.json: where a server of theirs may keep its envFile, besides the workspace. */
  personalFolder?: string;
  /** Tests may count or replace what is built; the default is the real server. */
  createSource?: (options: McpServerSourceOptions) => ToolSource & { readonly pid?: number };
}

/**
 * The MCP servers of this window: each workspace folder's `.vscode/mcp.json` (watched) and the
 * person's `toolbelt.mcp.servers`, one source each in the tool manager. A server whose
 * definition changed is stopped and replaced; one that went away is stopped and removed.
 * Nothing starts here: servers start when a registered tool needs them.
 */
export class McpServers extends Disposables {
  private readonly entries = new Map<string, Entry>();
  private readonly folderWatchers = this.register(new DisposableStore());
  private loading: Promise<void> = Promise.resolve();
  private lastProblems = '';
  private readonly loaded = this.register(new vscode.EventEmitter<void>());
  /** Fires after the definitions were read (again) and the servers replaced. */
  readonly onDidLoad = this.loaded.event;

  constructor(
    private readonly tools: WorkspaceTools,
    private readonly options: McpServersOptions,
  ) {
    super();
  }

  /** Reads the definitions and follows their changes from now on. */
  watch(): Promise<void> {
    this.watchFolders();
    this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => (this.watchFolders(), void this.reload())));
    this.register(vscode.workspace.onDidChangeConfiguration((event) => event.affectsConfiguration(`${SECTION}.${MCP_SERVERS_KEY}`) && void this.reload()));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => void this.resetRefusedForTrust()));
    return this.reload();
  }

  servers(): GuardedSource[] {
    return [...this.entries.values()].map((entry) => entry.source);
  }

  get(name: string): GuardedSource | undefined {
    return this.entries.get(name)?.source;
  }

  /** The server's definition as read now. */
  config(name: string): McpServerConfig | undefined {
    return this.entries.get(name)?.server;
  }

  /**
   * Settles once the definitions read so far are in place: a reload the settings or a file
   * started is finished. A start by name (a command, a chat turn) waits for it, or a server the
   * settings just named is not there yet, nobody starts it, and its tools wait forever.
   */
  settled(): Promise<void> {
    return this.loading.then(
      () => undefined,
      () => undefined,
    );
  }

  /** Reads every definition again; one reload at a time, in order. */
  reload(): Promise<void> {
    this.loading = this.loading.then(
      () => this.load(),
      () => this.load(),
    );
    return this.loading.catch((error: unknown) => this.options.log.error(`MCP servers could not be read: ${String(error)}`));
  }

  /** Stops every server; resolves once they are stopped. */
  override async dispose(): Promise<void> {
    super.dispose();
    const stopping = [...this.entries.keys()].map((name) => this.remove(name));
    await Promise.all(stopping);
  }

  private watchFolders(): void {
    this.folderWatchers.clear();
    if (this.isDisposed) return;
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, `.vscode/{mcp.json,${GOVERNED_MCP_FILE}}`));
      const reload = () => void this.reload();
      this.folderWatchers.add(vscode.Disposable.from(watcher, watcher.onDidCreate(reload), watcher.onDidChange(reload), watcher.onDidDelete(reload)));
    }
  }

  private async load(): Promise<void> {
    const { servers: wanted, problems } = await readServerSet();
    this.report(problems);
    for (const [name, entry] of [...this.entries]) {
      if (wanted.get(name)?.fingerprint !== entry.fingerprint) await this.remove(name);
    }
    for (const [name, definition] of wanted) if (!this.entries.has(name)) this.add(definition);
    this.loaded.fire();
  }

  private add(definition: McpDefinition): void {
    const { server } = definition;
    const { approvals, logs, log } = this.options;
    const create = this.options.createSource ?? ((options: McpServerSourceOptions) => new McpServerSource(options));
    const inner = create({
      server,
      inputs: definition.inputs,
      variables: { ...(definition.workspaceFolder !== undefined && { workspaceFolder: definition.workspaceFolder }), personalFolder: this.options.personalFolder, resolveInput: this.options.inputs.resolve },
      approve: (config, hash) => approvals.approve(config, hash),
      approveUnsandboxed: (config, hash, detail) => approvals.approveUnsandboxed(config, hash, detail),
      logger: logs.logger(server.name, log),
      sandbox: this.options.sandbox,
    });
    const source = new GuardedSource(inner, () => approvals.denial(server.name));
    const registration = this.tools.addSource(source);
    this.entries.set(server.name, { fingerprint: definition.fingerprint, server, source, registration });
    logs.channel(server.name).info(`Defined in ${server.origin}; starts when a registered tool needs it.`);
  }

  private async remove(name: string): Promise<void> {
    const entry = this.entries.get(name);
    if (!entry) return;
    this.entries.delete(name);
    entry.registration.dispose();
    await entry.source.stop().catch((error: unknown) => this.options.log.warn(`MCP server "${name}" did not stop cleanly: ${String(error)}`));
  }

  /** The workspace was trusted: servers refused for that reason go back to "not started". */
  private async resetRefusedForTrust(): Promise<void> {
    for (const [name, entry] of [...this.entries]) {
      const state = entry.source.state();
      if (state.state === 'failed' && state.reason === NOT_TRUSTED) {
        await this.remove(name);
      }
    }
    await this.reload();
  }

  private report(problems: string[]): void {
    const key = problems.join('\n');
    if (key === this.lastProblems) return;
    this.lastProblems = key;
    for (const problem of problems) this.options.log.warn(problem);
  }
}

/** Every server of the person's settings and the workspace folders' files, read by the one reader the CLI uses too (mcpServerSet). */
async function readServerSet(): Promise<ReturnType<typeof mcpServerSet>> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  const read = async (folder: vscode.WorkspaceFolder, file: string) => {
    const bytes = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder.uri, '.vscode', file)).then(
      (data) => data,
      () => undefined,
    );
    return bytes ? new TextDecoder().decode(bytes) : undefined;
  };
  const files: McpFolderFiles[] = await Promise.all(
    folders.map(async (folder) => ({
      ...(folder.uri.scheme === 'file' && { root: folder.uri.fsPath }),
      name: folder.name,
      governed: await read(folder, GOVERNED_MCP_FILE),
      mcpJson: await read(folder, 'mcp.json'),
    })),
  );
  return mcpServerSet(readUserMcpServers(), files, [{ name: EXTENSIONS_SOURCE_ID, why: "the name of other extensions' tools" }]);
}
