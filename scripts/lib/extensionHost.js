// Runs a test entry (a module exporting `run()`) inside a real VS Code extension host:
// code-server serves the workbench, headless Chromium opens it with an extension-test payload,
// and the workbench reports the output and exit code back through codeAutomationLog/Exit.
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const util = require('node:util');
const { chromium } = require('playwright-core');
const { ROOT, startCodeServer, copyWorkspace, chromiumLaunchOptions, log } = require('./host');

/** Workbench chatter a closed network produces; kept in the log file, left off the console. */
const NOISE = /open-vsx\.org|authentication provider|AgentHost|ChatModelSelection|Creating a socket|connection token|Service Worker|Updating additional builtin|AccountPolicyGate|reconnection-grace-time|signed-in session|vsda|marketplace/i;

const QUIET_USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'chat.disableAIFeatures': true,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
  'git.openRepositoryInParentFolders': 'never',
  // Nothing may be asked of a person while a suite runs.
  'security.workspace.trust.startupPrompt': 'never',
  'security.workspace.trust.untrustedFiles': 'open',
};

/**
 * @param {object} host from ensureHost()
 * @param {{name: string, fixture: string, tests: string, trust?: boolean, timeoutMs?: number, onLine?: (line: string) => void}} run
 * @returns {Promise<number>} the exit code the suite reported
 */
async function runInExtensionHost(host, run) {
  const workspace = copyWorkspace(path.join(ROOT, run.fixture));
  const server = await startCodeServer(host, { smokeTestDriver: true, trust: run.trust ?? false, userSettings: QUIET_USER_SETTINGS });
  const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(ROOT)],
    ['extensionTestsPath', remote(path.join(ROOT, run.tests))],
  ];
  const url = `${server.url}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const logFile = path.join(ROOT, 'test-results', `host-${run.name}.log`);
  fs.mkdirSync(path.dirname(logFile), { recursive: true });
  fs.writeFileSync(logFile, '');
  const timeoutMs = run.timeoutMs ?? 10 * 60_000;
  const browser = await chromium.launch(chromiumLaunchOptions(host));
  let exitCode;
  try {
    const page = await browser.newPage();
    let resolveExit;
    const exited = new Promise((resolve) => (resolveExit = resolve));
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const text = util.format(...(Array.isArray(args) ? args : [args]));
      fs.appendFileSync(logFile, `${text}\n`);
      if (run.onLine) run.onLine(text);
      else if (!NOISE.test(text)) (type === 'error' ? process.stderr : process.stdout).write(`${text}\n`);
    });
    await page.exposeFunction('codeAutomationExit', (code) => resolveExit(code));
    page.on('pageerror', (error) => fs.appendFileSync(logFile, `[pageerror] ${error.message}\n`));
    log(`${run.name}: opening the workbench on ${server.url}`);
    await page.goto(url);
    const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), timeoutMs));
    exitCode = await Promise.race([exited, timeout]);
    if (exitCode === 'timeout') {
      console.error(`[host] ${run.name}: no result within ${timeoutMs / 1000} s. Server log tail:\n${server.tail()}`);
      await page.screenshot({ path: path.join(ROOT, 'test-results', `host-${run.name}-timeout.png`) }).catch(() => undefined);
      exitCode = 1;
    }
  } finally {
    await browser.close().catch(() => undefined);
    if (exitCode !== 0) console.error(`[host] ${run.name}: server log tail:\n${server.tail(40)}\n(full workbench log: ${path.relative(ROOT, logFile)})`);
    await server.stop();
    fs.rmSync(path.dirname(workspace), { recursive: true, force: true });
  }
  return exitCode;
}

module.exports = { runInExtensionHost, QUIET_USER_SETTINGS };
