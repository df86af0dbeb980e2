// Runs test/integration inside a real VS Code extension host: code-server serves the workbench,
// headless Chromium opens it with an extension-test payload, and the workbench reports mocha's
// output and exit code back through codeAutomationLog / codeAutomationExit. Expects `npm run build`
// and `npm run compile-tests` to have run.
'use strict';

const path = require('node:path');
const fs = require('node:fs');
const util = require('node:util');
const { chromium } = require('playwright-core');
const { ROOT, ensureHost, startCodeServer, copyWorkspace, chromiumLaunchOptions, log } = require('./lib/host');

/** Workbench chatter a closed network produces; kept in the log file, left off the console. */
const NOISE = /open-vsx\.org|authentication provider|AgentHost|ChatModelSelection|Creating a socket|connection token|Service Worker|Updating additional builtin|AccountPolicyGate|reconnection-grace-time|signed-in session|vsda|marketplace/i;

const SUITE_TIMEOUT_MS = Number(process.env.TOOLBELT_SUITE_TIMEOUT_MS || 10 * 60_000);

/** The runs: each opens its own workspace copy; the restricted run leaves workspace trust on. */
const RUNS = [
  { name: 'trusted', fixture: 'test/fixtures/workspace', tests: 'out/test/integration/index.js', trust: false },
  { name: 'restricted', fixture: 'test/fixtures/workspace', tests: 'out/test/integration/restricted/index.js', trust: true },
];

async function runSuite(host, run) {
  const workspace = copyWorkspace(path.join(ROOT, run.fixture));
  const server = await startCodeServer(host, {
    smokeTestDriver: true,
    trust: run.trust,
    userSettings: {
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'extensions.autoCheckUpdates': false,
      'extensions.autoUpdate': false,
      'telemetry.telemetryLevel': 'off',
      // Nothing may be asked of a person while the suite runs.
      'security.workspace.trust.startupPrompt': 'never',
      'security.workspace.trust.untrustedFiles': 'open',
    },
    env: { TOOLBELT_TEST_WORKSPACE: workspace },
  });
  const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
  const payload = [
    ['extensionDevelopmentPath', remote(ROOT)],
    ['extensionTestsPath', remote(path.join(ROOT, run.tests))],
  ];
  const url = `${server.url}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
  const browser = await chromium.launch(chromiumLaunchOptions(host));
  let exitCode;
  try {
    const page = await browser.newPage();
    let resolveExit;
    const exited = new Promise((resolve) => (resolveExit = resolve));
    const logFile = path.join(ROOT, 'test-results', `integration-${run.name}.log`);
    fs.mkdirSync(path.dirname(logFile), { recursive: true });
    fs.writeFileSync(logFile, '');
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const text = util.format(...(Array.isArray(args) ? args : [args]));
      fs.appendFileSync(logFile, `${text}\n`);
      if (!NOISE.test(text)) (type === 'error' ? process.stderr : process.stdout).write(`${text}\n`);
    });
    await page.exposeFunction('codeAutomationExit', (code) => resolveExit(code));
    page.on('pageerror', (error) => console.error(`[workbench] ${error.message}`));
    log(`${run.name}: opening the workbench on ${server.url}`);
    await page.goto(url);
    const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), SUITE_TIMEOUT_MS));
    exitCode = await Promise.race([exited, timeout]);
    if (exitCode === 'timeout') {
      console.error(`[host] ${run.name}: the suite did not finish within ${SUITE_TIMEOUT_MS / 1000} s. Server log tail:\n${server.tail()}`);
      const shot = path.join(ROOT, 'test-results', `integration-${run.name}-timeout.png`);
      fs.mkdirSync(path.dirname(shot), { recursive: true });
      await page.screenshot({ path: shot }).catch(() => undefined);
      exitCode = 1;
    }
  } finally {
    await browser.close().catch(() => undefined);
    if (exitCode !== 0) console.error(`[host] server log tail:\n${server.tail(40)}`);
    await server.stop();
    fs.rmSync(path.dirname(workspace), { recursive: true, force: true });
  }
  return exitCode;
}

async function main() {
  const host = ensureHost();
  const only = process.argv[2];
  let failed = 0;
  for (const run of RUNS.filter((r) => !only || r.name === only)) {
    const started = Date.now();
    const code = await runSuite(host, run);
    log(`${run.name}: exit code ${code} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (code !== 0) failed++;
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
