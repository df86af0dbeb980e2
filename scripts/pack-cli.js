// `npm run pack:cli`: the toolbelt CLI as an npm package, toolbelt-<version>.tgz, that
// `npm install -g ./toolbelt-<version>.tgz` installs on a machine with only Node, offline.
//
// Why a staged folder and not `npm pack` of the repository: the repository's package.json is the
// extension's manifest. Its "dependencies" would be fetched at install (the bundles already carry
// them), and a "files" list there would stop vsce, which refuses one beside .vscodeignore. So the
// package is staged in its own folder: a package.json with the bin, a "files" list and no
// dependencies at all, and dist/cli.js with every chunk it loads (found by reading the bundles, so
// a new chunk is packed without an edit here).
//
// ripgrep is not packed: @vscode/ripgrep fetches a platform package at install. The CLI uses an
// `rg` on PATH when there is one, and otherwise searches in plain Node (dist/searchWorker.js).
//
// Usage: node scripts/pack-cli.js [--out DIR]   (default DIR: dist/; expects `npm run build`)
// Prints the .tgz's path as its last line.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');

/** The files of dist/ that `file` loads at run time: `__dirname + "/x.js"`, `${__dirname}/x.js` and `path.join(__dirname, "x.js")`. */
function chunksLoadedBy(file) {
  const text = fs.readFileSync(path.join(DIST, file), 'utf8');
  const names = new Set();
  for (const match of text.matchAll(/__dirname\s*\+\s*"\/([\w.-]+\.js)"/g)) names.add(match[1]);
  for (const match of text.matchAll(/\.join\(\s*__dirname\s*,\s*"([\w.-]+\.js)"\s*\)/g)) names.add(match[1]);
  for (const match of text.matchAll(/`\$\{__dirname\}\/([\w.-]+\.js)`/g)) names.add(match[1]);
  return [...names];
}

/** dist/cli.js and, transitively, the chunks it loads. Throws naming a chunk that is missing. */
function cliFiles() {
  const files = ['cli.js'];
  for (let i = 0; i < files.length; i++) {
    for (const chunk of chunksLoadedBy(files[i])) {
      if (!fs.existsSync(path.join(DIST, chunk))) throw new Error(`dist/${files[i]} loads dist/${chunk}, which is missing: run \`npm run build\`.`);
      if (!files.includes(chunk)) files.push(chunk);
    }
  }
  return files;
}

function stage(folder) {
  const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const files = cliFiles();
  fs.mkdirSync(path.join(folder, 'dist'), { recursive: true });
  for (const file of files) fs.copyFileSync(path.join(DIST, file), path.join(folder, 'dist', file));
  fs.chmodSync(path.join(folder, 'dist', 'cli.js'), 0o755);
  fs.copyFileSync(path.join(ROOT, 'LICENSE'), path.join(folder, 'LICENSE'));
  fs.writeFileSync(
    path.join(folder, 'README.md'),
    `# toolbelt\n\nThe command-line side of the Toolbelt VS Code extension: \`toolbelt mcp\`, \`run\`, \`policy explain | test\`, \`undo\`,\n` +
      `under the workspace's own policy (.vscode/settings.json). \`toolbelt --help\` says more.\n\n` +
      `Search uses \`rg\` (ripgrep) when it is on PATH, and plain Node otherwise.\n`,
  );
  const cli = {
    // The name the CLI checks to find its version (src/cli/main.ts, version()).
    name: manifest.name,
    version: manifest.version,
    description: 'Toolbelt CLI: the workspace\'s tools and policy outside VS Code (toolbelt mcp, run, policy, undo).',
    license: manifest.license,
    // Not for the registry (the name is the extension's); for `npm install -g ./toolbelt-x.y.z.tgz`.
    private: true,
    bin: { toolbelt: 'dist/cli.js' },
    files: files.map((file) => `dist/${file}`),
    engines: { node: '>=20' },
  };
  fs.writeFileSync(path.join(folder, 'package.json'), `${JSON.stringify(cli, null, 2)}\n`);
  return cli;
}

function main() {
  const at = process.argv.indexOf('--out');
  const out = path.resolve(at > 0 && process.argv[at + 1] ? process.argv[at + 1] : DIST);
  if (!fs.existsSync(path.join(DIST, 'cli.js'))) throw new Error('dist/cli.js is missing: run `npm run build` first.');
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'toolbelt-pack-'));
  try {
    const cli = stage(folder);
    fs.mkdirSync(out, { recursive: true });
    // --ignore-scripts: the staged package has none, and no lifecycle script of the repository may run.
    const packed = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: folder, encoding: 'utf8', shell: process.platform === 'win32' });
    if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stdout}\n${packed.stderr}`);
    const [{ filename, files }] = JSON.parse(packed.stdout);
    const tgz = path.join(out, filename);
    console.log(`${cli.name}@${cli.version}: ${files.map((f) => f.path).sort().join(', ')}`);
    console.log(tgz);
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

try {
  main();
} catch (error) {
  console.error(`pack-cli: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
