// Bundles the extension (Node, CommonJS) and, once it exists, the chat panel script (browser).
// `--production` minifies without sourcemaps; `--watch` rebuilds on change.
const esbuild = require('esbuild');
const fs = require('node:fs');
const path = require('node:path');

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** Prints errors in the `file:line:col: error: text` form VS Code's esbuild problem matcher reads. */
const problemMatcher = {
  name: 'problem-matcher',
  setup(build) {
    build.onStart(() => console.log('[watch] build started'));
    build.onEnd((result) => {
      for (const { text, location } of result.errors) {
        console.error(`✘ [ERROR] ${text}`);
        if (location) console.error(`    ${location.file}:${location.line}:${location.column}:`);
      }
      console.log('[watch] build finished');
    });
  },
};

const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  logLevel: 'silent',
  plugins: [problemMatcher],
  metafile: true,
};

const targets = [
  {
    ...common,
    // extension.js loads at activation; chat.js (Agent, providers, SDKs) on the first chat turn.
    // searchWorker.js: the plain-Node search's worker thread (src/tools/searchInWorker.ts).
    entryPoints: { extension: 'src/extension.ts', chat: 'src/agent/runtime.ts', searchWorker: 'src/tools/searchWorker.ts' },
    outdir: 'dist',
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['vscode'],
  },
];

const webviewEntry = 'src/webview/main.ts';
if (fs.existsSync(webviewEntry)) {
  targets.push({
    ...common,
    entryPoints: { webview: webviewEntry },
    outdir: 'dist',
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    loader: { '.css': 'css' },
  });
}

async function main() {
  fs.mkdirSync('dist', { recursive: true });
  const contexts = await Promise.all(targets.map((options) => esbuild.context(options)));
  if (watch) {
    await Promise.all(contexts.map((ctx) => ctx.watch()));
    return;
  }
  const results = await Promise.all(contexts.map((ctx) => ctx.rebuild()));
  await Promise.all(contexts.map((ctx) => ctx.dispose()));
  for (const result of results) {
    for (const [file, { bytes }] of Object.entries(result.metafile.outputs)) {
      if (!file.endsWith('.map')) console.log(`${path.relative('.', file)}  ${(bytes / 1024).toFixed(1)} KB`);
    }
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
