// `npm test` part 2: the integration suites inside a real VS Code extension host (code-server),
// once with the workspace trusted and once in restricted mode. Expects `npm run build` and
// `npm run compile-tests` to have run. `node scripts/test-integration.js restricted` runs one.
'use strict';

const { ensureHost, log } = require('./lib/host');
const { runInExtensionHost } = require('./lib/extensionHost');

const RUNS = [
  { name: 'trusted', fixture: 'test/fixtures/workspace', tests: 'out/test/integration/index.js', trust: false },
  { name: 'restricted', fixture: 'test/fixtures/workspace', tests: 'out/test/integration/restricted/index.js', trust: true },
];

async function main() {
  const host = ensureHost();
  const only = process.argv[2];
  let failed = 0;
  for (const run of RUNS.filter((r) => !only || r.name === only)) {
    const started = Date.now();
    const code = await runInExtensionHost(host, run);
    log(`${run.name}: exit code ${code} after ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (code !== 0) failed++;
  }
  process.exit(failed ? 1 : 0);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
