import { PROVIDER_NAMES } from '../../src/providers/providerNames';
import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { BUILTIN_MANIFEST, summaryOf } from '../../src/tools/manifest';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const properties = pkg.contributes.configuration.properties;

describe('package.json: the extension manifest', () => {
  it('is a real VS Code extension manifest', () => {
    assert.equal(pkg.name, 'toolbelt');
    assert.equal(pkg.publisher, 'toolbelt');
    assert.equal(pkg.main, './dist/extension.js');
    assert.match(pkg.engines.vscode, /^\^1\.\d+\.\d+$/);
    assert.ok(existsSync(path.join(ROOT, pkg.icon)), 'the icon exists');
    for (const script of ['build', 'test', 'start', 'bench', 'package']) assert.equal(typeof pkg.scripts[script], 'string', script);
  });

  it('activates after startup (VS Code\'s chat needs its tools offered and its model listed), never before', () => {
    assert.ok(!pkg.activationEvents.includes('*'));
    assert.ok(pkg.activationEvents.includes('onStartupFinished'));
  });

  it('completes the manifest tools in the registry setting, with their summaries, and accepts MCP and extension tool names', () => {
    const registry = properties['toolbelt.tools.registry'];
    assert.deepEqual(registry.default, []);
    const [builtins, mcp, extension] = registry.items.properties.name.anyOf;
    assert.deepEqual(builtins.enum, BUILTIN_MANIFEST.map((d) => d.name));
    assert.deepEqual(builtins.enumDescriptions, BUILTIN_MANIFEST.map((d) => summaryOf(d)));
    for (const ok of ['github/create_issue', 'github/*']) assert.match(ok, new RegExp(mcp.pattern), ok);
    for (const bad of ['/x', 'github/', 'a b/c']) assert.doesNotMatch(bad, new RegExp(mcp.pattern), bad);
    assert.match('vscode_listCodeUsages', new RegExp(extension.pattern));
    assert.doesNotMatch('not a tool', new RegExp(extension.pattern));
    assert.deepEqual(registry.items.required, ['name']);
    for (const field of ['type', 'parameters', 'builtin_handler']) assert.ok(registry.items.properties[field].deprecationMessage, field);
  });

  it('contributes the contract settings', () => {
    assert.deepEqual(properties['toolbelt.provider'].enum, [...PROVIDER_NAMES]);
    assert.equal(properties['toolbelt.sessionContextFile'].default, '.toolbelt/session-context.md');
    for (const key of ['toolbelt.model', 'toolbelt.baseUrl', 'toolbelt.systemPrompt', 'toolbelt.chat.maxToolRounds']) assert.ok(properties[key], key);
    assert.equal(properties['toolbelt.chat.maxToolRounds'].default, 25);
  });

  it('contributes the views in their own container', () => {
    assert.deepEqual(pkg.contributes.viewsContainers.activitybar.map((c: { id: string }) => c.id), ['toolbelt']);
    const views = pkg.contributes.views.toolbelt;
    assert.deepEqual(views.map((v: { id: string }) => v.id), ['toolbelt.chat', 'toolbelt.tools']);
    assert.equal(views[0].type, 'webview');
  });

  it('declares every contract command, and every command a menu uses', () => {
    const declared = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
    for (const command of ['toolbelt.openChat', 'toolbelt.newChat', 'toolbelt.enableTool', 'toolbelt.disableTool', 'toolbelt.tools.list', 'toolbelt.tools.available', 'toolbelt.setApiKey']) {
      assert.ok(declared.has(command), command);
    }
    for (const [menu, entries] of Object.entries(pkg.contributes.menus as Record<string, { command: string }[]>)) {
      for (const entry of entries) assert.ok(declared.has(entry.command), `${menu}: ${entry.command}`);
    }
  });

  it('supports untrusted workspaces in a limited way and restricts the endpoint settings', () => {
    const trust = pkg.capabilities.untrustedWorkspaces;
    assert.equal(trust.supported, 'limited');
    for (const key of ['toolbelt.baseUrl', 'toolbelt.systemPrompt']) assert.ok(trust.restrictedConfigurations.includes(key), key);
  });

  it('packages with an allow-list', () => {
    const ignore = readFileSync(path.join(ROOT, '.vscodeignore'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
    assert.equal(ignore[0], '**');
    assert.ok(ignore.includes('!dist/extension.js'));
    assert.ok(ignore.includes('!dist/host.js'), 'the host the shell loads on first use');
  });
});

describe('esbuild.js: the shell (dist/extension.js) shares no module with the bundles it loads', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the build script is CommonJS
  const { modulesSharedWithShell } = require(path.join(ROOT, 'esbuild.js')) as { modulesSharedWithShell(metafile: unknown): string[] };
  const output = (inputs: Record<string, number>) => ({
    inputs: Object.fromEntries(Object.entries(inputs).map(([file, bytesInOutput]) => [file, { bytesInOutput }])),
  });

  it('names a module bundled into the shell and into the host or the chat, and lets type-only imports be', () => {
    const metafile = {
      outputs: {
        'dist/extension.js': output({ 'src/extension.ts': 900, 'src/vscode/lazyHost.ts': 4000, 'src/vscode/api.ts': 0, 'src/tools/errors.ts': 120, 'src/protocol.ts': 300 }),
        'dist/host.js': output({ 'src/vscode/host.ts': 2000, 'src/vscode/api.ts': 800, 'src/tools/errors.ts': 120 }),
        'dist/chat.js': output({ 'src/agent/runtime.ts': 500, 'src/protocol.ts': 300 }),
        'dist/webview.js': output({ 'src/extension.ts': 10 }),
      },
    };
    assert.deepEqual(modulesSharedWithShell(metafile), ['src/tools/errors.ts (also in dist/host.js)', 'src/protocol.ts (also in dist/chat.js)']);
  });

  it('finds nothing when the shell holds only its own files', () => {
    const metafile = { outputs: { 'dist/extension.js': output({ 'src/extension.ts': 900 }), 'dist/host.js': output({ 'src/vscode/host.ts': 2000 }) } };
    assert.deepEqual(modulesSharedWithShell(metafile), []);
  });
});
