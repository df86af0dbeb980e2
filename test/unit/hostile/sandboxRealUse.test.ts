import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { createDefaultToolRegistry } from '../../../src/tools/factory';
import { sandboxAvailability } from '../../../src/tools/sandbox/sandboxAvailability';
import type { SandboxSetting } from '../../../src/tools/types';
import { contextFor } from '../../support/workspace';

/**
 * Real work in the sandbox with this machine's own home folder and toolchains (not a fixture's):
 * the home folder is hidden, so what tools need of it must come back — pyenv's shims, rustup's
 * cargo, git's identity — and npm reaches the registry through the allow-list proxy. Only as the
 * account whose home holds them (root here); the unprivileged cases run on the fixture's home in
 * sandbox.test.ts.
 */
const ALLOW_ALL = { allowed: ['/.*/'], denied: [] };
const has = (program: string) => spawnSync('sh', ['-c', `command -v ${program}`]).status === 0;

describe('sandbox: real work with the home folder hidden (this machine\'s toolchains)', function () {
  this.timeout(180_000);
  let ws: string;

  before(async function () {
    const availability = await sandboxAvailability();
    // Environment guards: a sandbox, and root (this machine's toolchains live in root's home).
    if (process.platform !== 'linux' || !availability.available || process.getuid?.() !== 0) this.skip();
    ws = realpathSync(await fs.mkdtemp(path.join('/var/tmp', 'toolbelt-real-use-')));
    await fs.writeFile(path.join(ws, 'Makefile'), 'all:\n\t@echo make-ran\n');
    await fs.writeFile(path.join(ws, 'package.json'), JSON.stringify({ name: 'real-use', version: '1.0.0', private: true }));
  });
  after(() => (ws ? fs.rm(ws, { recursive: true, force: true }) : undefined));

  const run = async (command: string, sandbox: SandboxSetting = { mode: 'auto', network: 'off' }): Promise<string> => {
    const registry = createDefaultToolRegistry(contextFor(ws, { sandbox, commandPolicy: ALLOW_ALL }));
    registry.enable('run_bash');
    const result = await registry.execute('run_bash', { command, timeoutSeconds: 150 });
    assert.match(result, / · sandboxed, network /, result);
    return result;
  };

  it('python through pyenv, node, make, and git commit with the identity of ~/.gitconfig', async () => {
    const name = spawnSync('git', ['config', '--global', 'user.name'], { encoding: 'utf8' }).stdout.trim();
    const result = await run('python3 -c "print(6*9)" && node -e "console.log(6*7)" && make && git init -q && git add Makefile && git commit -qm real && git log --format=%an -1');
    assert.match(result, /^Exit code: 0 /, result);
    for (const expected of ['54', '42', 'make-ran']) assert.match(result, new RegExp(`^${expected}$`, 'm'), result);
    if (name) assert.match(result, new RegExp(`^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'), 'the identity of ~/.gitconfig');
    assert.equal(execFileSync('git', ['-C', ws, 'log', '--format=%s', '-1'], { encoding: 'utf8' }).trim(), 'real');
  });

  it('a cargo build, offline, with rustup in the hidden home folder', async function () {
    if (!has('cargo')) this.skip(); // environment guard: no Rust toolchain on this machine
    const result = await run('cargo new --offline --vcs none -q hello && cd hello && cargo build --offline -q && ./target/debug/hello');
    assert.match(result, /^Exit code: 0 /, result);
    assert.match(result, /^Hello, world!$/m, result);
  });

  it('npm install through the allow-list proxy (registry.npmjs.org only), with ~/.npmrc hidden', async () => {
    const result = await run('npm install is-number@7.0.0 --no-audit --no-fund --no-package-lock && node -e "console.log(require(\'is-number\')(5))"', { mode: 'auto', network: 'allowlist', allowedDomains: ['registry.npmjs.org'] });
    assert.match(result, /^Exit code: 0 /, result);
    assert.match(result, /^true$/m, result);
    assert.ok(await fs.stat(path.join(ws, 'node_modules', 'is-number', 'package.json')), 'the package is in the workspace');
  });
});
