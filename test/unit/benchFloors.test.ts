import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { requireWithVscode } from '../support/withFakeVscode';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface Floors {
  FLOORS: Record<string, string[]>;
  writeFloorExtension(dir: string, name: string, manifest: unknown): string;
}

interface Contributes {
  viewsContainers: { activitybar: { id: string }[] };
  views?: Record<string, { id: string; type?: string }[]>;
  commands?: { command: string }[];
  languageModelTools?: { name: string; toolReferenceName?: string }[];
  chatParticipants?: { id: string; name: string }[];
}

/** Runs a floor's extension.js against a `vscode` that records each registration. */
function registrationsOf(dir: string): string[] {
  const calls: string[] = [];
  const record = (kind: string) => (id: string) => (calls.push(`${kind} ${id}`), { dispose: () => undefined });
  const vscode = {
    window: { createTreeView: record('tree'), registerTreeDataProvider: record('tree'), registerWebviewViewProvider: record('webview') },
    lm: { registerTool: record('tool') },
    chat: { createChatParticipant: record('participant') },
    commands: { registerCommand: record('command') },
  };
  requireWithVscode<{ activate(context: { subscriptions: unknown[] }): unknown }>(vscode, [path.join(dir, 'extension.js')]).activate({ subscriptions: [] });
  return calls;
}

describe('scripts/lib/benchFloors.js: the activation bench\'s floor extensions', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the bench helpers are CommonJS
  const floors = require(path.join(ROOT, 'scripts', 'lib', 'benchFloors.js')) as Floors;
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { contributes: Contributes };
  let dir: string;

  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolbelt-floors-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const written = (name: string) => {
    const id = floors.writeFloorExtension(dir, name, manifest);
    const folder = path.join(dir, `${id}-0.0.1`);
    return { id, folder, contributes: (JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8')) as { contributes: Contributes }).contributes };
  };

  it("floor-all registers what Toolbelt's shell does, under its own contributed ids", () => {
    const { id, folder, contributes } = written('floor-all');
    assert.equal(id, 'toolbelt-bench.floor-all');
    const tools = manifest.contributes.languageModelTools ?? [];
    const commands = manifest.contributes.commands ?? [];
    assert.equal(contributes.languageModelTools?.length, tools.length);
    assert.equal(contributes.commands?.length, commands.length);
    const calls = registrationsOf(folder);
    assert.deepEqual(
      calls.filter((call) => !call.startsWith('command ') && !call.startsWith('tool ')),
      ['tree floorAll.tools', 'webview floorAll.chat', 'participant floorAll.agent'],
    );
    assert.deepEqual(
      calls.filter((call) => call.startsWith('tool ')),
      tools.map((tool) => `tool ${tool.name.replace(/^toolbelt_/, 'floorAll_')}`),
    );
    assert.deepEqual(
      calls.filter((call) => call.startsWith('command ')),
      commands.map((entry) => `command ${entry.command.replace(/^toolbelt\./, 'floorAll.')}`),
    );
    const contributed = new Set([
      ...Object.values(contributes.views ?? {}).flat().map((view) => view.id),
      ...(contributes.languageModelTools ?? []).map((tool) => tool.name),
      ...(contributes.chatParticipants ?? []).map((participant) => participant.id),
      ...(contributes.commands ?? []).map((entry) => entry.command),
    ]);
    for (const call of calls) assert.ok(contributed.has(call.split(' ')[1]), `${call} is registered but not contributed`);
    assert.ok(![...contributed].some((name) => name.startsWith('toolbelt')), 'a floor must not take one of Toolbelt\'s own ids');
  });

  it('a single-surface floor registers and contributes that surface only', () => {
    const { folder, contributes } = written('floor-webview');
    assert.deepEqual(registrationsOf(folder), ['webview floorWebview.chat']);
    assert.deepEqual(Object.values(contributes.views ?? {}).flat().map((view) => [view.id, view.type]), [['floorWebview.chat', 'webview']]);
    assert.equal(contributes.commands, undefined);
    assert.equal(contributes.languageModelTools, undefined);
  });

  it('refuses a floor it does not know', () => {
    assert.throws(() => floors.writeFloorExtension(dir, 'floor-nothing', manifest), /no floor extension "floor-nothing"/);
  });
});
