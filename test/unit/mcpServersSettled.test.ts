import * as assert from 'node:assert/strict';
import type { McpServerSourceOptions } from '../../src/tools/mcp/mcpServerSource';
import type { SourceState, ToolSource } from '../../src/tools/toolSource';
import type { McpServers as McpServersClass } from '../../src/vscode/sources/mcpServers';
import type { registerMcpCommands as RegisterMcpCommands } from '../../src/vscode/sources/mcpCommands';
import { requireWithVscode } from '../support/withFakeVscode';

type Listener = (event: { affectsConfiguration(section: string): boolean }) => void;

/** The part of VS Code the MCP server list and its commands use: user settings that change, no folders. */
function fakeVscode() {
  const configListeners: Listener[] = [];
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  const errors: string[] = [];
  let userServers: unknown;
  const disposable = { dispose: () => undefined };
  class EventEmitter<T> {
    private readonly listeners: ((value: T) => void)[] = [];
    event = (listener: (value: T) => void) => (this.listeners.push(listener), disposable);
    fire(value: T) {
      for (const listener of this.listeners) listener(value);
    }
    dispose() {}
  }
  const vscode = {
    EventEmitter,
    Disposable: { from: () => disposable },
    ExtensionMode: { Production: 1, Development: 2, Test: 3 },
    workspace: {
      workspaceFolders: undefined,
      isTrusted: true,
      onDidChangeWorkspaceFolders: () => disposable,
      onDidGrantWorkspaceTrust: () => disposable,
      onDidChangeConfiguration: (listener: Listener) => (configListeners.push(listener), disposable),
      getConfiguration: () => ({ inspect: () => ({ globalValue: userServers }), get: () => undefined }),
      fs: { readFile: async () => Promise.reject(new Error('ENOENT')) },
    },
    window: { showErrorMessage: async (message: string) => void errors.push(message), showInformationMessage: async () => undefined },
    commands: { registerCommand: (id: string, run: (...args: unknown[]) => unknown) => (commands.set(id, run), disposable) },
  };
  return {
    vscode,
    commands,
    errors,
    /** As the settings editor does: the value changes, then the change event fires; reading it again is up to the listener. */
    setUserServers(value: unknown) {
      userServers = value;
      for (const listener of configListeners) listener({ affectsConfiguration: (section) => section === 'toolbelt.mcp.servers' || section === 'toolbelt' });
    },
  };
}

class CountingSource implements ToolSource {
  readonly kind = 'mcp' as const;
  readonly id: string;
  readonly label: string;
  starts = 0;
  private current: SourceState = { state: 'not-started' };
  constructor(options: McpServerSourceOptions) {
    this.id = options.server.name;
    this.label = options.server.name;
  }
  state = () => this.current;
  tools = () => [];
  start = async () => {
    this.starts++;
    this.current = { state: 'running' };
  };
  stop = async () => {
    this.current = { state: 'stopped' };
  };
  call = async () => ({ text: '', isError: false });
  onDidChange = () => ({ dispose: () => undefined });
}

describe('MCP servers of the person\'s settings: a start by name right after the settings name the server', () => {
  it('finds the server (the command waits for the definitions being read) and starts it', async () => {
    const fake = fakeVscode();
    const files = ['../../src/vscode/sources/mcpServers', '../../src/vscode/settings', '../../src/vscode/sources/extensionTools', '../../src/vscode/sources/serverApprovals'].map((f) => require.resolve(f));
    const { McpServers } = requireWithVscode<{ McpServers: typeof McpServersClass }>(fake.vscode, files);
    const { registerMcpCommands } = requireWithVscode<{ registerMcpCommands: typeof RegisterMcpCommands }>(fake.vscode, [require.resolve('../../src/vscode/sources/mcpCommands')]);
    const created: CountingSource[] = [];
    const tools = { addSource: () => ({ dispose: () => undefined }) };
    const log = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const logs = { logger: () => log, channel: () => log };
    const approvals = { approve: async () => true, denial: () => undefined };
    const servers = new McpServers(tools as never, {
      approvals: approvals as never,
      inputs: { resolve: async () => undefined } as never,
      logs: logs as never,
      log: log as never,
      createSource: (options) => {
        const source = new CountingSource(options);
        created.push(source);
        return source;
      },
    });
    await servers.watch();
    registerMcpCommands({ subscriptions: [], extensionMode: 1 } as never, servers, logs as never, approvals as never);

    fake.setUserServers({ mine: { command: 'node', args: ['server.js'] } });
    const state = await fake.commands.get('toolbelt.mcp.start')!('mine');
    assert.deepEqual(fake.errors, [], 'the server was there to be found');
    assert.deepEqual(state, { state: 'running' });
    assert.equal(created.length, 1);
    assert.equal(created[0].starts, 1);
    await servers.dispose();
  });
});
