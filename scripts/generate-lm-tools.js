// Writes package.json's `contributes.languageModelTools` from the builtins manifest, so VS Code's
// tool list never repeats a schema by hand. `--check` only says whether package.json is current.
// test/unit/lmToolsManifest.test.ts fails when the two differ.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const Module = require('node:module');
const esbuild = require('esbuild');

const ROOT = path.resolve(__dirname, '..');
const ENTRIES = path.join(ROOT, 'src', 'vscode', 'nativeChat', 'lmToolEntries.ts');
const PACKAGE = path.join(ROOT, 'package.json');

/** Bundles lmToolEntries.ts (it imports only the manifest) in memory and loads it. */
function loadEntries() {
  const built = esbuild.buildSync({ entryPoints: [ENTRIES], bundle: true, platform: 'node', format: 'cjs', write: false, logLevel: 'silent' });
  const loaded = new Module(ENTRIES);
  loaded.filename = ENTRIES;
  loaded.paths = Module._nodeModulePaths(path.dirname(ENTRIES));
  loaded._compile(built.outputFiles[0].text, ENTRIES);
  return loaded.exports.lmToolEntries();
}

function main() {
  const check = process.argv.includes('--check');
  const text = fs.readFileSync(PACKAGE, 'utf8');
  const pkg = JSON.parse(text);
  const entries = loadEntries();
  const current = JSON.stringify(pkg.contributes.languageModelTools ?? null);
  if (current === JSON.stringify(entries)) {
    console.log(`package.json: ${entries.length} language-model tools, up to date.`);
    return;
  }
  if (check) {
    console.error('package.json: contributes.languageModelTools differs from the manifest; run node scripts/generate-lm-tools.js');
    process.exit(1);
  }
  pkg.contributes.languageModelTools = entries;
  fs.writeFileSync(PACKAGE, `${JSON.stringify(pkg, null, 2)}\n`);
  console.log(`package.json: wrote ${entries.length} language-model tools.`);
}

main();
