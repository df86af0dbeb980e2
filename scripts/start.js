// `npm start`: builds Toolbelt and serves a real VS Code (code-server) on 127.0.0.1 with the
// extension loaded and the sample workspace open. State (settings, toggles, chat history) lives
// in .cache/start/ and survives restarts; delete that folder to start fresh.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, CACHE, ensureHost, startCodeServer, linkExtension, log } = require('./lib/host');

const STATE = path.join(CACHE, 'start');

async function main() {
  const build = spawnSync(process.execPath, [path.join(ROOT, 'esbuild.js')], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
  const host = ensureHost();

  const workspace = path.join(STATE, 'sample-workspace');
  if (!fs.existsSync(workspace)) {
    fs.mkdirSync(STATE, { recursive: true });
    fs.cpSync(path.join(ROOT, 'sample-workspace'), workspace, { recursive: true });
    log(`copied the sample workspace to ${path.relative(ROOT, workspace)}`);
  }
  const extensionsDir = path.join(STATE, 'extensions');
  const userDataDir = path.join(STATE, 'user-data');
  fs.mkdirSync(extensionsDir, { recursive: true });
  const settingsFile = path.join(userDataDir, 'User', 'settings.json');
  const firstRun = !fs.existsSync(settingsFile);
  if (!firstRun) showVsCodeChat(settingsFile);
  linkExtension(extensionsDir);

  const port = Number(process.env.TOOLBELT_PORT || process.env.PORT || 8080);
  const server = await startCodeServer(host, {
    port: await isFree(port) ? port : undefined,
    extensionsDir,
    userDataDir,
    keepHome: false,
    userSettings: firstRun
      ? {
          'workbench.startupEditor': 'none',
          // VS Code's own Chat (where @toolbelt, Toolbelt's model and Agent mode live) opens beside Toolbelt's panel.
          'workbench.secondarySideBar.defaultVisibility': 'visible',
          'telemetry.telemetryLevel': 'off',
          'git.openRepositoryInParentFolders': 'never',
          'extensions.autoCheckUpdates': false,
          'extensions.autoUpdate': false,
        }
      : undefined,
    extraArgs: process.argv.slice(2),
    env: process.env,
  });
  const url = `${server.url}/?folder=${encodeURIComponent(workspace)}`;
  console.log(`\nToolbelt is running in VS Code at:\n\n  ${url}\n\nOpen it in a browser, then click the Toolbelt icon in the activity bar.`);
  console.log("VS Code's own Chat is on the right: type @toolbelt there, or pick \"(Toolbelt)\" in its model picker. For Agent mode without a sign-in, run \"Chat: Manage Language Models\" once (README: Toolbelt in VS Code's Chat).");
  console.log('Rebuild with `npm run watch` in another terminal and reload the window to see changes. Ctrl+C stops.\n');

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    log('stopping');
    await server.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/**
 * Earlier `npm start` runs turned VS Code's Chat off (`chat.disableAIFeatures`): @toolbelt, Toolbelt's
 * model in the picker and Copilot's Agent mode never showed. That one setting is taken out again.
 */
function showVsCodeChat(settingsFile) {
  let settings;
  try {
    settings = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
  } catch {
    return; // settings.json with comments or hand edits: left as the person wrote it
  }
  if (!settings || settings['chat.disableAIFeatures'] !== true) return;
  delete settings['chat.disableAIFeatures'];
  fs.writeFileSync(settingsFile, `${JSON.stringify(settings, null, 2)}\n`);
  log("turned VS Code's Chat back on (chat.disableAIFeatures was set by an earlier npm start)");
}

function isFree(port) {
  return new Promise((resolve) => {
    const probe = require('node:net').createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
