import * as assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BUILTIN_NAMES } from '../../src/tools/manifest';
import { ToolManager } from '../../src/tools/toolManager';
import { JsonStateFile } from '../../src/vscode/jsonStateFile';
import type * as OfferedToolKeysModule from '../../src/vscode/nativeChat/offeredToolKeys';
import type * as PresenceModule from '../../src/vscode/nativeChat/presence';
import type * as SettingsOfferModule from '../../src/vscode/nativeChat/settingsOffer';
import { readToolToggles, TOGGLES_KEY, TOOL_STATE_FILE } from '../../src/vscode/toolState';
import { fakePresenceVscode, offeredKeys, type FakeModelProvider } from '../support/fakePresenceVscode';
import { requireWithVscode } from '../support/withFakeVscode';
import { contextFor, TempWorkspace } from '../support/workspace';

const SRC = path.join(__dirname, '..', '..', 'src', 'vscode');
/** Every compiled module presence loads that requires `vscode`. */
const PRESENCE_MODULES = ['nativeChat/presence.js', 'nativeChat/offeredToolKeys.js', 'nativeChat/settingsOffer.js', 'nativeChat/toolbeltModelProvider.js', 'settings.js', 'apiKeys.js'];

function load<T>(fake: ReturnType<typeof fakePresenceVscode>, first: string): T {
  return requireWithVscode<T>(fake.api, [first, ...PRESENCE_MODULES.filter((file) => file !== first)].map((file) => path.join(SRC, file)));
}

/** A workspace storage folder holding `toggles` as WorkspaceTools writes them. */
function storageWith(toggles?: unknown): { fsPath: string; scheme: 'file' } {
  const folder = mkdtempSync(path.join(os.tmpdir(), 'toolbelt-presence-'));
  if (toggles !== undefined) writeFileSync(path.join(folder, TOOL_STATE_FILE), JSON.stringify({ [TOGGLES_KEY]: toggles }));
  return { fsPath: folder, scheme: 'file' };
}

describe("presence: what every window does for VS Code's chat before the host loads", () => {
  describe('availabilityFromSettings: the host\'s rule read from the settings', () => {
    let ws: TempWorkspace;
    const folders: string[] = [];
    before(async () => (ws = await TempWorkspace.create()));
    after(() => {
      ws.dispose();
      folders.forEach((folder) => rmSync(folder, { recursive: true, force: true }));
    });

    const REGISTRIES: unknown[] = [
      undefined,
      [],
      {},
      'read_file',
      [{ name: 'read_file' }, { name: 'write_file' }, { name: 'run_bash' }, { name: 'remove' }],
      BUILTIN_NAMES.map((name) => ({ name })),
      ['calculator', { name: ' list_dir ' }, { name: 'toolbelt_read_file' }, { name: 'github/*' }, { name: 42 }, null, { name: 'mkdir', type: 'builtin', parameters: {} }],
      [{ name: 'remove' }, { name: 'remove' }, { name: 'move', description: 'Moves things, said the workspace.' }],
    ];
    const TOGGLES: unknown[] = [undefined, { remove: true, run_bash: true, read_file: false }, { write_file: false, calculator: 'yes', mkdir: null }, ['remove'], 'broken'];

    it('offers exactly what the host offers, for every registry, switches and trust tried', () => {
      const fake = fakePresenceVscode();
      const { availabilityFromSettings } = load<typeof SettingsOfferModule>(fake, 'nativeChat/settingsOffer.js');
      const { availabilityIn } = load<typeof OfferedToolKeysModule>(fake, 'nativeChat/offeredToolKeys.js');
      let compared = 0;
      for (const toggles of TOGGLES) {
        const storageUri = storageWith(toggles);
        folders.push(storageUri.fsPath);
        // The host's side, fed as WorkspaceTools feeds it: its state file, the same key, booleans only.
        const state = new JsonStateFile(path.join(storageUri.fsPath, TOOL_STATE_FILE));
        const hostToggle = (name: string) => {
          const value = state.get<Record<string, unknown>>(TOGGLES_KEY, {})[name];
          return typeof value === 'boolean' ? value : undefined;
        };
        // Presence's side: the same folder, read without the host.
        const toggle = readToolToggles({ storageUri, workspaceState: { get: () => undefined } } as never);
        for (const trusted of [true, false]) {
          for (const entries of REGISTRIES) {
            const manager = new ToolManager({ context: contextFor(ws), trusted, toggles: { get: hostToggle, set: () => undefined } });
            manager.applyConfig(entries);
            for (const tool of [...BUILTIN_NAMES, 'not_a_tool']) {
              const host = availabilityIn({ manager, trusted: manager.trusted } as never, tool);
              const presence = availabilityFromSettings(tool, { entries, toggle, trusted });
              assert.equal(presence, host, `${tool} with registry ${JSON.stringify(entries)}, switches ${JSON.stringify(toggles)}, trusted ${trusted}`);
              compared++;
            }
          }
        }
      }
      assert.equal(compared, TOGGLES.length * 2 * REGISTRIES.length * (BUILTIN_NAMES.length + 1));
    });

    it('reads the switches from the workspace Memento where the storage folder is not on this disk', () => {
      const toggle = readToolToggles({ storageUri: { scheme: 'vscode-userdata', fsPath: '/nowhere' }, workspaceState: { get: (key: string) => (key === TOGGLES_KEY ? { remove: true, mkdir: 'no' } : undefined) } } as never);
      assert.deepEqual([toggle('remove'), toggle('mkdir'), toggle('move')], [true, undefined, undefined]);
    });
  });

  describe('startPresence', () => {
    const folders: string[] = [];
    after(() => folders.forEach((folder) => rmSync(folder, { recursive: true, force: true })));

    function started(options: Parameters<typeof fakePresenceVscode>[0] & { toggles?: unknown } = {}) {
      const fake = fakePresenceVscode(options);
      const { startPresence } = load<typeof PresenceModule>(fake, 'nativeChat/presence.js');
      const storageUri = storageWith(options.toggles);
      folders.push(storageUri.fsPath);
      const context = { subscriptions: [] as { dispose(): unknown }[], storageUri, secrets: { get: async () => undefined }, workspaceState: { get: () => undefined } };
      const hostLoads: string[] = [];
      const tasks: (() => void)[] = [];
      const presence = startPresence(context as never, (reason) => hostLoads.push(reason), (task) => (tasks.push(task), { dispose: () => tasks.splice(tasks.indexOf(task), 1) }) as never);
      /** Runs the tasks presence left for later, as the event loop would. */
      const runTasks = () => tasks.splice(0).forEach((task) => task());
      return { fake, presence, context, hostLoads, runTasks, pending: () => tasks.length };
    }

    it('sets every offered key from the settings, the switches in the state file and trust, and the others false', async () => {
      const registry = [{ name: 'read_file' }, { name: 'write_file' }, { name: 'remove' }, { name: 'run_bash' }];
      const trusted = started({ settings: { 'toolbelt.tools.registry': registry }, toggles: { remove: true, read_file: false } });
      await Promise.resolve();
      assert.deepEqual(offeredKeys(trusted.fake.contextKeys), ['remove', 'write_file']);
      assert.equal(trusted.fake.contextKeys.size, BUILTIN_NAMES.length, 'every key set, so none keeps a value from an earlier extension host');
      assert.deepEqual(trusted.presence.offered.sentValues().run_bash, false);

      const untrusted = started({ settings: { 'toolbelt.tools.registry': registry }, toggles: { remove: true }, trusted: false });
      await Promise.resolve();
      assert.deepEqual(offeredKeys(untrusted.fake.contextKeys), ['read_file']);
      assert.deepEqual(untrusted.hostLoads, []);
    });

    it('offers the write tools once trust is granted, without loading the host', async () => {
      const { fake, hostLoads } = started({ settings: { 'toolbelt.tools.registry': [{ name: 'read_file' }, { name: 'mkdir' }] }, trusted: false });
      await Promise.resolve();
      assert.deepEqual(offeredKeys(fake.contextKeys), ['read_file']);
      fake.grantTrust();
      await Promise.resolve();
      assert.deepEqual(offeredKeys(fake.contextKeys), ['mkdir', 'read_file']);
      assert.deepEqual(hostLoads, []);
    });

    it('loads the host when toolbelt.tools.registry changes (a tool named now has no stand-in), not on other settings', () => {
      const { fake, hostLoads } = started({ settings: { 'toolbelt.tools.registry': [{ name: 'read_file' }] } });
      fake.setSetting('toolbelt.model', 'llama3');
      fake.setSetting('editor.fontSize', 14);
      assert.deepEqual(hostLoads, []);
      fake.setSetting('toolbelt.tools.registry', [{ name: 'read_file' }, { name: 'list_dir' }]);
      assert.deepEqual(hostLoads, ['a change of toolbelt.tools.registry']);
    });

    it('registers Toolbelt\'s model in a task of its own and asks for it once, so a fresh picker lists it', async () => {
      const { fake, runTasks, presence } = started({ settings: { 'toolbelt.provider': 'ollama', 'toolbelt.model': 'qwen3' } });
      assert.equal(fake.vendors.size, 0, 'not in the task that set the keys');
      runTasks();
      const provider = fake.vendors.get('toolbelt') as FakeModelProvider;
      assert.deepEqual(provider.provideLanguageModelChatInformation({ silent: true }, undefined).map((model) => model.id), ['ollama/qwen3']);
      assert.deepEqual(fake.modelsAskedFor, [{ vendor: 'toolbelt' }]);
      await new Promise((resolve) => setImmediate(resolve));
      const lines: string[] = [];
      presence.attachLog({ info: (line: string) => void lines.push(line), warn: (line: string) => void lines.push(`warn: ${line}`) });
      assert.deepEqual(lines, ["VS Code's model picker lists qwen3 (Toolbelt)."]);
    });

    it('follows toolbelt.provider: the picker is told, and lists no model on "vscode"', () => {
      const { fake, runTasks } = started();
      runTasks();
      const provider = fake.vendors.get('toolbelt') as FakeModelProvider;
      let told = 0;
      provider.onDidChangeLanguageModelChatInformation?.(() => told++);
      fake.setSetting('toolbelt.provider', 'vscode');
      assert.equal(told, 1);
      assert.deepEqual(provider.provideLanguageModelChatInformation({ silent: true }, undefined), []);
    });

    it('on a VS Code without language-model providers (before 1.104) registers none and says so in the log', () => {
      const { fake, runTasks, presence } = started({ withChatProviders: false });
      runTasks();
      assert.deepEqual(fake.modelsAskedFor, []);
      const lines: string[] = [];
      presence.attachLog({ info: (line: string) => void lines.push(line), warn: (line: string) => void lines.push(line) });
      assert.match(lines.join('\n'), /cannot list Toolbelt's model in its model picker; 1\.104 or later can/);
    });

    it("leaves nothing behind when the extension is disposed before the model's task ran", () => {
      const { fake, context, pending } = started();
      assert.equal(pending(), 1);
      const listening = fake.configurationListeners();
      context.subscriptions.forEach((subscription) => subscription.dispose());
      assert.equal(pending(), 0);
      assert.equal(fake.vendors.size, 0);
      assert.ok(fake.configurationListeners() < listening, 'the settings watcher stopped listening');
    });

    it('hands the keys to the host\'s tools: they follow those from then on, and the settings no longer count', async () => {
      const { fake, presence, hostLoads } = started({ settings: { 'toolbelt.tools.registry': [{ name: 'read_file' }] } });
      await Promise.resolve();
      let offer = new Set(['calculator']);
      const listeners: (() => void)[] = [];
      presence.offered.follow({
        availability: (tool) => (offer.has(tool) ? 'offered' : 'disabled'),
        onDidChange: (listener) => (listeners.push(listener), { dispose: () => listeners.splice(0) }),
      });
      await Promise.resolve();
      assert.deepEqual(offeredKeys(fake.contextKeys), ['calculator']);
      offer = new Set(['calculator', 'mkdir']);
      listeners.forEach((listener) => listener());
      await Promise.resolve();
      assert.deepEqual(offeredKeys(fake.contextKeys), ['calculator', 'mkdir']);
      assert.deepEqual(hostLoads, []);
    });

    it('sends a key again on the next change when VS Code refused it, and says so in the log', async () => {
      const { fake, presence } = started({ settings: { 'toolbelt.tools.registry': [{ name: 'read_file' }] } });
      const warnings: string[] = [];
      presence.attachLog({ info: () => undefined, warn: (line: string) => void warnings.push(line) });
      await Promise.resolve();
      fake.failSetContext(true);
      let offered = false;
      presence.offered.follow({ availability: (tool) => (offered && tool === 'mkdir' ? 'offered' : 'disabled'), onDidChange: () => ({ dispose: () => undefined }) });
      offered = true;
      presence.offered.update();
      await new Promise((resolve) => setImmediate(resolve));
      assert.match(warnings.join('\n'), /Could not tell VS Code whether mkdir is offered to models: Error: the renderer is gone/);
      fake.failSetContext(false);
      presence.offered.update();
      await Promise.resolve();
      assert.deepEqual(offeredKeys(fake.contextKeys), ['mkdir']);
    });
  });

  describe('hostDescriptions', () => {
    it("loads the host for the first of Toolbelt's tools asked before it has handed them over, then answers with the host's", () => {
      const { hostDescriptions } = load<typeof PresenceModule>(fakePresenceVscode(), 'nativeChat/presence.js');
      const loads: string[] = [];
      const descriptions = hostDescriptions((reason) => {
        loads.push(reason);
        descriptions.handOver((name) => (name === 'toolbelt_calculator' ? 'Adds up, says the workspace.' : undefined));
      });
      assert.equal(descriptions.of('copilot_readFile'), undefined);
      assert.equal(descriptions.of('toolbelt_no_such_tool'), undefined);
      assert.deepEqual(loads, [], "another extension's tool needs no description from the host");
      assert.equal(descriptions.of('toolbelt_calculator'), 'Adds up, says the workspace.');
      assert.equal(descriptions.of('toolbelt_read_file'), undefined);
      assert.deepEqual(loads, ["Toolbelt's model in VS Code's chat"]);
    });
  });
});
