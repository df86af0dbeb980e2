// Part of `npm test`: packages the .vsix the way `npm run package` does and checks that it holds
// exactly what .vscodeignore allows, so a packaging error or a leaked file fails CI.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const EXPECTED = [
  'extension/package.json',
  'extension/readme.md',
  'extension/changelog.md',
  'extension/LICENSE.txt',
  'extension/dist/extension.js',
  'extension/dist/host.js',
  'extension/dist/presence.js',
  'extension/dist/mcpSdk.js',
  'extension/dist/chat.js',
  'extension/dist/cli.js',
  'extension/dist/cliMain.js',
  'extension/dist/hook.js',
  'extension/dist/searchWorker.js',
  'extension/dist/lib-unbash.js',
  'extension/dist/webview.js',
  'extension/dist/webview.css',
  'extension/media/icon.png',
  'extension/media/toolbelt.svg',
  'extension/docs/screenshot.png',
  'extension/docs/screenshot-dark.png',
];

/** The file names in a zip's central directory (a .vsix is a zip); no unzip binary needed. */
function zipEntries(zip) {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error('not a zip file');
  const count = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  const names = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(offset) !== 0x02014b50) throw new Error('corrupt zip central directory');
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    names.push(zip.toString('utf8', offset + 46, offset + 46 + nameLength));
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return names;
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolbelt-vsix-'));
const vsix = path.join(dir, 'toolbelt.vsix');
try {
  const vsce = path.join(ROOT, 'node_modules', '.bin', 'vsce');
  const packaged = spawnSync(vsce, ['package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', vsix], { cwd: ROOT, encoding: 'utf8' });
  if (packaged.status !== 0) throw new Error(`vsce package failed:\n${packaged.stdout}\n${packaged.stderr}`);
  const files = zipEntries(fs.readFileSync(vsix)).filter((f) => f.startsWith('extension/'));
  const missing = EXPECTED.filter((f) => !files.includes(f));
  const extra = files.filter((f) => !EXPECTED.includes(f));
  if (missing.length || extra.length) {
    throw new Error(`the .vsix does not hold what .vscodeignore allows:\n  missing: ${missing.join(', ') || 'none'}\n  unexpected: ${extra.join(', ') || 'none'}`);
  }
  console.log(`package ok: ${files.length} files, ${(fs.statSync(vsix).size / 1024).toFixed(1)} KB`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
