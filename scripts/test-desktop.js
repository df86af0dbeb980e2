// The integration suite in desktop VS Code via @vscode/test-electron, for machines that can
// download VS Code (this project's CI machine cannot; `npm test` uses code-server instead).
'use strict';

const path = require('node:path');
const { runTests } = require('@vscode/test-electron');
const { ROOT, copyWorkspace } = require('./lib/host');

async function main() {
  const workspace = copyWorkspace(path.join(ROOT, 'test', 'fixtures', 'workspace'));
  await runTests({
    extensionDevelopmentPath: ROOT,
    extensionTestsPath: path.join(ROOT, 'out', 'test', 'integration', 'index.js'),
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust'],
  });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
