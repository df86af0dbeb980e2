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

/**
 * dist/chat.js gets the extension's tool registry passed in; a module of src/tools inside it is a
 * second copy of the tool core that never runs (type-only imports are fine: they vanish).
 */
const CHAT_BUNDLE = path.join('dist', 'chat.js');
const TOOL_CORE = /^src[\\/]tools[\\/]/;

function toolCoreInChatBundle(metafile) {
  const chat = Object.entries(metafile.outputs).find(([file]) => path.normalize(file) === CHAT_BUNDLE);
  return chat ? Object.keys(chat[1].inputs).filter((input) => TOOL_CORE.test(input)) : [];
}

/** Says so, on every build and rebuild (watch mode too), when src/tools lands in dist/chat.js. */
const chatWithoutToolCore = {
  name: 'chat-without-tool-core',
  setup(build) {
    build.onEnd((result) => {
      const strays = result.metafile ? toolCoreInChatBundle(result.metafile) : [];
      if (strays.length === 0) return;
      console.error(
        `✘ [ERROR] ${CHAT_BUNDLE} must not contain src/tools (the extension passes its registry to the Agent), but it bundles:\n` +
          strays.map((file) => `    ${file}`).join('\n') +
          '\n  Import these as types only (`import type`), or move what the chat needs out of src/tools (see src/agent/agentLoop.ts).',
      );
    });
  },
};

/**
 * dist/extension.js is the shell that loads at activation: stand-ins, then dist/host.js on first
 * use (src/vscode/lazyHost.ts). A module in the shell and in a bundle it loads would run twice,
 * as two copies: a second state, `instanceof` failing across them, and bytes loaded at activation
 * for nothing. Type-only imports are fine (they vanish).
 */
const SHELL_BUNDLE = path.join('dist', 'extension.js');
const LOADED_BY_SHELL = [path.join('dist', 'host.js'), CHAT_BUNDLE];

function modulesSharedWithShell(metafile) {
  const inputsOf = (bundle) => {
    const output = Object.entries(metafile.outputs).find(([file]) => path.normalize(file) === bundle);
    return output ? Object.entries(output[1].inputs).filter(([, { bytesInOutput }]) => bytesInOutput > 0).map(([input]) => input) : [];
  };
  const shell = new Set(inputsOf(SHELL_BUNDLE));
  return LOADED_BY_SHELL.flatMap((bundle) => inputsOf(bundle).filter((input) => shell.has(input)).map((input) => `${input} (also in ${bundle})`));
}

/** Says so, on every build and rebuild, when a module lands in the shell and in a bundle it loads. */
const shellApartFromHost = {
  name: 'shell-apart-from-host',
  setup(build) {
    build.onEnd((result) => {
      const shared = result.metafile ? modulesSharedWithShell(result.metafile) : [];
      if (shared.length === 0) return;
      console.error(
        `✘ [ERROR] ${SHELL_BUNDLE} must share no module with the bundles it loads, but it bundles:\n` +
          shared.map((file) => `    ${file}`).join('\n') +
          '\n  Import these in the shell as types only (`import type`) and reach them through the host (src/vscode/lazyHost.ts).',
      );
    });
  },
};

/**
 * In a CommonJS bundle, `import * as vscode from 'vscode'` (or any `import` of an external module)
 * becomes a wrapper that copies every export of the module into a new object at load time, once
 * per importing module: for VS Code's API that is several hundred properties, at activation. The
 * shell imports external modules as `import vscode = require('vscode')`, a plain require.
 */
function wrappedImportsInShell(metafile) {
  const shell = Object.entries(metafile.outputs).find(([file]) => path.normalize(file) === SHELL_BUNDLE);
  if (!shell) return [];
  return Object.entries(shell[1].inputs)
    .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
    .flatMap(([input]) => (metafile.inputs[input]?.imports ?? []).filter((entry) => entry.external && entry.kind === 'import-statement').map((entry) => `${input} imports ${entry.path}`));
}

const shellPlainRequires = {
  name: 'shell-plain-requires',
  setup(build) {
    build.onEnd((result) => {
      const wrapped = result.metafile ? wrappedImportsInShell(result.metafile) : [];
      if (wrapped.length === 0) return;
      console.error(
        `✘ [ERROR] ${SHELL_BUNDLE} loads at activation, where an external module's \`import\` costs a copy of all its exports:\n` +
          wrapped.map((line) => `    ${line}`).join('\n') +
          "\n  Write `import vscode = require('vscode');` (a plain require) in the shell's modules.",
      );
    });
  },
};

/**
 * npm packages the extension needs only after activation (unbash: run_bash's command policy).
 * Each is bundled apart into dist/lib-<name>.js; the node bundles that import it get a stand-in
 * whose exports load the real one on first use, so activation does not read it.
 */
const DEFERRED_PACKAGES = ['unbash'];
const deferredFile = (name) => `lib-${name}.js`;

/** The stand-in's source: a wrapper per function export, a getter for anything else. */
async function deferredStandIn(name) {
  const real = await import(name);
  const lines = [
    "const path = require('node:path');",
    'let real;',
    // A computed path keeps esbuild from bundling the real package here again.
    `const load = () => (real ??= require(path.join(__dirname, ${JSON.stringify(deferredFile(name))})));`,
  ];
  for (const [key, value] of Object.entries(real)) {
    if (key === 'default') continue;
    const name = JSON.stringify(key);
    if (typeof value === 'function') {
      lines.push(`exports[${name}] = function (...args) { const f = load()[${name}]; return new.target ? Reflect.construct(f, args, new.target) : f.apply(this, args); };`);
    } else {
      lines.push(`Object.defineProperty(exports, ${name}, { enumerable: true, get: () => load()[${name}] });`);
    }
  }
  return lines.join('\n');
}

const deferPackages = {
  name: 'defer-packages',
  setup(build) {
    const filter = new RegExp(`^(${DEFERRED_PACKAGES.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
    build.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'deferred' }));
    build.onLoad({ filter: /.*/, namespace: 'deferred' }, async (args) => ({ contents: await deferredStandIn(args.path), loader: 'js', resolveDir: __dirname }));
  },
};

/**
 * Modules the extension loads with `import()` when it first needs them, bundled apart into
 * dist/<name>.js: the bundle that imports them gets a stand-in that requires that file at the
 * `import()`, so its own size (and what loads before) leaves them out. The module's exports are
 * the real ones (its classes work with `instanceof`). Importers use `import()` or `import type` only.
 */
const SPLIT_MODULES = Object.fromEntries(
  Object.entries({
    // The MCP SDK (with zod and ajv), loaded when the first MCP server starts (src/tools/mcp/loadSdkClient.ts).
    mcpSdk: 'src/tools/mcp/sdkClient.ts',
  }).filter(([, file]) => fs.existsSync(file)),
);

const splitModules = {
  name: 'split-modules',
  setup(build) {
    const bundleOf = new Map(Object.entries(SPLIT_MODULES).map(([name, file]) => [path.resolve(file), `${name}.js`]));
    if (bundleOf.size === 0) return;
    const names = [...bundleOf.keys()].map((file) => path.basename(file, path.extname(file)).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
    build.onResolve({ filter: new RegExp(`(^|/)(${names.join('|')})(\\.[jt]s)?$`) }, async (args) => {
      if (args.kind === 'entry-point' || args.pluginData === 'split-modules') return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'split-modules' });
      const bundle = bundleOf.get(resolved.path);
      return bundle ? { path: bundle, namespace: 'split' } : undefined;
    });
    // A computed path keeps esbuild from bundling the module here again.
    build.onLoad({ filter: /.*/, namespace: 'split' }, (args) => ({
      contents: `const path = require('node:path');\nmodule.exports = require(path.join(__dirname, ${JSON.stringify(args.path)}));`,
      loader: 'js',
    }));
  },
};

/**
 * Packages whose `main` is a UMD build that loads its own files with a require esbuild cannot
 * follow (the bundle would ask for './impl/format' at run time): bundle their ES module build.
 */
const ESM_BUILDS = { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' };

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
    // extension.js (the shell) loads at activation; host.js (services, tree, chat view, commands)
    // on first use; chat.js (Agent, providers, SDKs) on the first chat turn.
    // searchWorker.js: the plain-Node search's worker thread (src/tools/searchInWorker.ts).
    entryPoints: { extension: 'src/extension.ts', host: 'src/vscode/host.ts', chat: 'src/agent/runtime.ts', searchWorker: 'src/tools/searchWorker.ts', ...SPLIT_MODULES },
    outdir: 'dist',
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['vscode'],
    alias: ESM_BUILDS,
    plugins: [...common.plugins, deferPackages, splitModules, chatWithoutToolCore, shellApartFromHost, shellPlainRequires],
  },
  ...DEFERRED_PACKAGES.map((name) => ({
    ...common,
    stdin: { contents: `export * from ${JSON.stringify(name)};`, resolveDir: __dirname, sourcefile: `${name} (deferred)` },
    outfile: path.join('dist', deferredFile(name)),
    format: 'cjs',
    platform: 'node',
    target: 'node20',
  })),
];

/**
 * The `toolbelt` command (package.json "bin"): the core (src/core.ts: tools, providers, Agent)
 * and src/cli, bundled with nothing external, so a `vscode` import anywhere below the core cannot
 * resolve and fails the build. It shares dist/mcpSdk.js and dist/lib-unbash.js with the extension.
 */
const CLI_BUNDLE = path.join('dist', 'cli.js');
const CORE_ENTRY = 'src/core.ts';

/** The CLI must reach the core through src/core.ts, or the build no longer checks the whole core. */
function cliWithoutCore(metafile) {
  const cli = Object.entries(metafile.outputs).find(([file]) => path.normalize(file) === CLI_BUNDLE);
  return cli !== undefined && !Object.keys(cli[1].inputs).some((input) => path.normalize(input) === path.normalize(CORE_ENTRY));
}

const cliThroughCore = {
  name: 'cli-through-core',
  setup(build) {
    build.onEnd((result) => {
      if (result.metafile && cliWithoutCore(result.metafile)) {
        console.error(`✘ [ERROR] ${CLI_BUNDLE} does not import ${CORE_ENTRY}: import the core's classes from '../core' in src/cli, so the build checks the whole core for vscode imports.`);
      }
    });
  },
};

targets.push({
  ...common,
  entryPoints: { cli: 'src/cli/cli.ts' },
  outdir: 'dist',
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
  alias: ESM_BUILDS,
  plugins: [...common.plugins, deferPackages, splitModules, cliThroughCore],
});

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

/** .vscodeignore is an allow-list: a bundle it does not name is missing from the .vsix (a deferred lib included). */
function warnIfLeftOutOfPackage(results) {
  const allowed = fs
    .readFileSync('.vscodeignore', 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('!'))
    .map((line) => new RegExp(`^${line.slice(1).trim().replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '.*').replace(/(?<!\.)\*/g, '[^/]*')}$`));
  for (const result of results) {
    for (const file of Object.keys(result.metafile.outputs)) {
      const relative = path.relative('.', file).split(path.sep).join('/');
      if (!relative.endsWith('.map') && !allowed.some((pattern) => pattern.test(relative))) {
        console.warn(`▲ [WARNING] ${relative} is not in .vscodeignore's allow-list, so the .vsix would go without it: add "!${relative}".`);
      }
    }
  }
}

async function main() {
  fs.mkdirSync('dist', { recursive: true });
  const contexts = await Promise.all(targets.map((options) => esbuild.context(options)));
  if (watch) {
    await Promise.all(contexts.map((ctx) => ctx.watch()));
    return;
  }
  const built = await Promise.all(contexts.map((ctx) => ctx.rebuild()));
  await Promise.all(contexts.map((ctx) => ctx.dispose()));
  const results = built.filter((_, index) => targets[index].write !== false);
  warnIfLeftOutOfPackage(results);
  // chatWithoutToolCore, shellApartFromHost, shellPlainRequires and cliThroughCore have said which; a one-shot build fails.
  const failed = (metafile) =>
    toolCoreInChatBundle(metafile).length > 0 || modulesSharedWithShell(metafile).length > 0 || wrappedImportsInShell(metafile).length > 0 || cliWithoutCore(metafile);
  if (results.some((result) => failed(result.metafile))) process.exit(1);
  // `toolbelt` runs as a program (package.json "bin"), not only through `node dist/cli.js`.
  if (fs.existsSync(CLI_BUNDLE)) fs.chmodSync(CLI_BUNDLE, 0o755);
  for (const result of results) {
    for (const [file, { bytes }] of Object.entries(result.metafile.outputs)) {
      if (!file.endsWith('.map')) console.log(`${path.relative('.', file)}  ${(bytes / 1024).toFixed(1)} KB`);
    }
  }
}

if (require.main === module) {
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
}

module.exports = { deferPackages, deferredFile, toolCoreInChatBundle, modulesSharedWithShell, wrappedImportsInShell, cliWithoutCore };
