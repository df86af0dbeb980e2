import * as assert from 'node:assert/strict';
import { accessSync, constants, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { builtCli, REPO_ROOT, runCliProcess } from '../support/cliProcess';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { cliWithoutCore } = require(path.join(REPO_ROOT, 'esbuild.js')) as { cliWithoutCore(metafile: unknown): boolean };

describe('The toolbelt command as built: dist/cli.js, the bin, the .vsix', () => {
  it('is a program without vscode: a shebang, executable, no require of vscode anywhere in it (nor in the bundles it loads)', () => {
    const cli = builtCli();
    const text = readFileSync(cli, 'utf8');
    assert.ok(text.startsWith('#!/usr/bin/env node\n'));
    accessSync(cli, constants.X_OK);
    for (const file of [cli, path.join(path.dirname(cli), 'cliMain.js'), path.join(path.dirname(cli), 'hook.js')]) assert.doesNotMatch(readFileSync(file, 'utf8'), /require\(["']vscode["']\)/, file);
  });

  it('is package.json\'s "bin" and in the .vsix allow-list', () => {
    const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    assert.deepEqual(pkg.bin, { toolbelt: 'dist/cli.js' });
    for (const file of ['cli', 'cliMain', 'hook']) assert.match(readFileSync(path.join(REPO_ROOT, '.vscodeignore'), 'utf8'), new RegExp(`^!dist/${file}\\.js$`, 'm'));
  });

  it('fails the build when the CLI stops reaching the core through src/core.ts (the check that keeps vscode out of the core)', () => {
    const withCore = { outputs: { 'dist/cliMain.js': { inputs: { 'src/core.ts': {}, 'src/cli/cliMain.ts': {} } } } };
    const withoutCore = { outputs: { 'dist/cliMain.js': { inputs: { 'src/cli/cliMain.ts': {} } } } };
    assert.equal(cliWithoutCore(withCore), false);
    assert.equal(cliWithoutCore(withoutCore), true);
  });

  it('toolbelt --help lists mcp, run, policy and undo; an unknown command is a usage error', async () => {
    const help = await runCliProcess(['--help']);
    assert.equal(help.code, 0);
    for (const command of ['mcp ', 'run PROMPT', 'policy explain TOOL ARGS_JSON', 'policy test', 'undo ']) assert.ok(help.stdout.includes(`  ${command}`), command);
    const unknown = await runCliProcess(['frobnicate']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command "frobnicate"/);
  });
});
