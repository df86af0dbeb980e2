// The floor extensions of the activation bench: each registers, in plain code and nothing else,
// what Toolbelt's shell registers at activation (one surface, or all of them), under its own ids
// and with the same contributions in its package.json. Timed in the same host as Toolbelt, they
// show what VS Code itself charges per registration, apart from what Toolbelt's own code costs.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const PUBLISHER = 'toolbelt-bench';

/** Each surface: what it contributes (from Toolbelt's package.json, renamed) and the code that registers it. */
const SURFACES = {
  tree: {
    contributes: (c, p) => ({ views: { [p]: [{ ...viewOf(c, 'toolbelt.tools'), id: `${p}.tools` }] } }),
    code: (p) => `s.push(vscode.window.createTreeView(${q(`${p}.tools`)}, { treeDataProvider: { getChildren: () => [], getTreeItem: (e) => e }, manageCheckboxStateManually: true }));`,
  },
  treeProvider: {
    contributes: (c, p) => ({ views: { [p]: [{ ...viewOf(c, 'toolbelt.tools'), id: `${p}.tools` }] } }),
    code: (p) => `s.push(vscode.window.registerTreeDataProvider(${q(`${p}.tools`)}, { getChildren: () => [], getTreeItem: (e) => e }));`,
  },
  webview: {
    contributes: (c, p) => ({ views: { [p]: [{ ...viewOf(c, 'toolbelt.chat'), id: `${p}.chat` }] } }),
    code: (p) => `s.push(vscode.window.registerWebviewViewProvider(${q(`${p}.chat`)}, { resolveWebviewView() {} }));`,
  },
  tools: {
    contributes: (c, p) => ({ languageModelTools: c.languageModelTools.map((tool) => ({ ...tool, name: renameTool(tool.name, p), toolReferenceName: renameTool(tool.toolReferenceName, p) })) }),
    code: (p, c) => `for (const name of ${JSON.stringify(c.languageModelTools.map((tool) => renameTool(tool.name, p)))}) s.push(vscode.lm.registerTool(name, { invoke() { return undefined; } }));`,
  },
  participant: {
    contributes: (c, p) => ({ chatParticipants: c.chatParticipants.map((entry) => ({ ...entry, id: `${p}.agent`, name: p, fullName: p })) }),
    code: (p) => `s.push(vscode.chat.createChatParticipant(${q(`${p}.agent`)}, () => ({})));`,
  },
  commands: {
    contributes: (c, p) => ({ commands: c.commands.map((entry) => ({ ...entry, command: renameCommand(entry.command, p) })) }),
    code: (p, c) => `for (const id of ${JSON.stringify(c.commands.map((entry) => renameCommand(entry.command, p)))}) s.push(vscode.commands.registerCommand(id, () => undefined));`,
  },
};

/** The floors the bench can install: one per surface, and all of Toolbelt's startup surfaces together (twice, to time them warm; once more as a warm-up). */
const FLOORS = {
  'floor-tree': ['tree'],
  'floor-treeprovider': ['treeProvider'],
  'floor-webview': ['webview'],
  'floor-tools': ['tools'],
  'floor-participant': ['participant'],
  'floor-commands': ['commands'],
  'floor-all': ['tree', 'webview', 'tools', 'participant', 'commands'],
  'floor-all-again': ['tree', 'webview', 'tools', 'participant', 'commands'],
  // Not timed: the warm-up of a warm host run, standing in for what a real window's other
  // extensions (built-in ones, Copilot Chat) have registered before onStartupFinished.
  'warm-host': ['tree', 'webview', 'tools', 'participant', 'commands'],
};

/** Installs the floor `name` into `extensionsDir`, shaped after Toolbelt's package.json; returns its extension id. */
function writeFloorExtension(extensionsDir, name, toolbeltManifest) {
  const surfaces = FLOORS[name];
  if (!surfaces) throw new Error(`no floor extension "${name}"`);
  const prefix = name.replace(/-(.)/g, (_, c) => c.toUpperCase());
  const c = toolbeltManifest.contributes;
  const contributes = { viewsContainers: { activitybar: [{ id: prefix, title: prefix, icon: 'icon.svg' }] } };
  for (const surface of surfaces) mergeContributions(contributes, SURFACES[surface].contributes(c, prefix));
  const manifest = { name, publisher: PUBLISHER, version: '0.0.1', engines: toolbeltManifest.engines, main: './extension.js', activationEvents: [], contributes };
  const dir = path.join(extensionsDir, `${PUBLISHER}.${name}-0.0.1`);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest, null, 2));
  fs.writeFileSync(path.join(dir, 'icon.svg'), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16"/></svg>');
  const body = surfaces.map((surface) => `  ${SURFACES[surface].code(prefix, c)}`).join('\n');
  fs.writeFileSync(path.join(dir, 'extension.js'), `'use strict';\nconst vscode = require('vscode');\nexports.activate = (context) => {\n  const s = context.subscriptions;\n${body}\n  return {};\n};\n`);
  return `${PUBLISHER}.${name}`;
}

function mergeContributions(into, more) {
  for (const [key, value] of Object.entries(more)) {
    if (Array.isArray(value)) into[key] = [...(into[key] ?? []), ...value];
    else into[key] = { ...(into[key] ?? {}), ...Object.fromEntries(Object.entries(value).map(([k, v]) => [k, [...(into[key]?.[k] ?? []), ...v]])) };
  }
}

function viewOf(contributes, id) {
  const view = Object.values(contributes.views).flat().find((entry) => entry.id === id);
  if (!view) throw new Error(`package.json contributes no view ${id}`);
  return { ...view, icon: 'icon.svg' };
}

const renameTool = (name, prefix) => name.replace(/^toolbelt_/, `${prefix}_`);
const renameCommand = (id, prefix) => id.replace(/^toolbelt\./, `${prefix}.`);
const q = (text) => JSON.stringify(text);

module.exports = { FLOORS, writeFloorExtension, PUBLISHER };
