import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { stateDirFor } from '../../src/cli/stateDir';
import { parseLines, type ToolCallRecord } from '../../src/tools/toolCallLog';
import { fixturePath } from '../fixtures/mcp/fixtureSources';
import { TempWorkspace } from './workspace';

export interface CliFixtureOptions {
  /** `.vscode/settings.json`: an object, or text as written (comments and line numbers kept). */
  settings?: Record<string, unknown> | string;
  /** `.vscode/mcp.json`'s servers: name → fixture file in test/fixtures/mcp. */
  mcpFixtures?: Record<string, string>;
  /** The person's own settings file (passed with --user-settings). */
  user?: Record<string, unknown>;
  files?: Record<string, string>;
}

/**
 * A workspace for the CLI on disk: its settings, the person's own settings file and the state
 * folder beside it (outside the workspace), and the options that point toolbelt at them.
 */
export class CliFixture {
  private constructor(
    readonly ws: TempWorkspace,
    readonly stateBase: string,
    readonly userSettings: string,
  ) {}

  static async create(options: CliFixtureOptions = {}): Promise<CliFixture> {
    const ws = await TempWorkspace.create(options.files ?? {});
    const fixture = new CliFixture(ws, path.join(ws.parent, 'state'), path.join(ws.parent, 'user-settings.json'));
    if (options.settings !== undefined) await fixture.writeSettings(options.settings);
    if (options.mcpFixtures) {
      const servers = Object.fromEntries(Object.entries(options.mcpFixtures).map(([name, file]) => [name, { command: process.execPath, args: [fixturePath(file)] }]));
      await ws.write({ '.vscode/mcp.json': JSON.stringify({ servers }, null, 2) });
    }
    await fs.writeFile(fixture.userSettings, JSON.stringify(options.user ?? {}, null, 2));
    return fixture;
  }

  get root(): string {
    return this.ws.root;
  }

  /** The options every command takes: this workspace, this state folder, this person's file. */
  args(...extra: string[]): string[] {
    return ['--workspace', this.root, '--state-dir', this.stateBase, '--user-settings', this.userSettings, ...extra];
  }

  /** Where toolbelt keeps this workspace's undo records and call log. */
  get stateDir(): string {
    return stateDirFor(this.root, this.stateBase);
  }

  async writeSettings(settings: Record<string, unknown> | string): Promise<void> {
    await this.ws.write({ '.vscode/settings.json': typeof settings === 'string' ? settings : JSON.stringify(settings, null, 2) });
  }

  /** The call log's records so far (empty before the first call). */
  async callLog(): Promise<ToolCallRecord[]> {
    return parseLines(await fs.readFile(path.join(this.stateDir, 'tool-calls.jsonl'), 'utf8').catch(() => ''));
  }

  dispose(): Promise<void> {
    return this.ws.dispose();
  }
}
