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
 * Loaded apart: the one way Toolbelt defers code, explained in docs/ARCHITECTURE.md, "Bundles". Each
 * entry is bundled into dist/<name>.js; elsewhere its module is a stand-in that requires that file
 * (a source module: where its importer requires it; an npm package: on the first call of an export).
 */
const LOADED_APART = {
  // The shell (dist/extension.js) loads these two: presence 1.5 s after activation in every window
  // (src/vscode/nativeChat/presence.ts), the host on the first use of a stand-in (src/vscode/lazyHost.ts).
  presence: 'src/vscode/nativeChat/presence.ts',
  host: 'src/vscode/host.ts',
  // The Agent, the providers and their SDKs: on the first chat turn (src/vscode/chat/runtimeLoader.ts).
  chat: 'src/agent/runtime.ts',
  // The MCP SDK (with zod and ajv): when the first MCP server starts (src/tools/mcp/loadSdkClient.ts).
  mcpSdk: 'src/tools/mcp/sdkClient.ts',
  // run_bash's command policy parser (src/tools/command/commandPolicy.ts): on the first command it judges.
  'lib-unbash': { package: 'unbash' },
};
const SOURCES_APART = Object.fromEntries(Object.entries(LOADED_APART).filter(([, module]) => typeof module === 'string'));
const PACKAGES_APART = Object.fromEntries(Object.entries(LOADED_APART).flatMap(([name, module]) => (typeof module === 'string' ? [] : [[module.package, name]])));
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

/** A package's stand-in: a wrapper per function export, a getter for anything else (export names read from the package now). */
async function packageStandIn(name) {
  const real = await import(name);
  const lines = [
    'let real;',
    `const load = () => (real ??= require(__dirname + ${JSON.stringify(`/${PACKAGES_APART[name]}.js`)}));`,
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

/** The plugin; `inline` names source modules this build bundles as usual (the core check follows them). */
function loadedApart({ inline = [] } = {}) {
  return {
    name: 'loaded-apart',
    setup(build) {
      const bundleOf = new Map(Object.entries(SOURCES_APART).filter(([name]) => !inline.includes(name)).map(([name, file]) => [path.resolve(file), name]));
      const packages = Object.keys(PACKAGES_APART);
      build.onResolve({ filter: new RegExp(`^(${packages.map(escapeRegExp).join('|')})$`) }, (args) => ({ path: args.path, namespace: 'apart-package' }));
      build.onLoad({ filter: /.*/, namespace: 'apart-package' }, async (args) => ({ contents: await packageStandIn(args.path), loader: 'js' }));
      const basenames = [...bundleOf.keys()].map((file) => escapeRegExp(path.basename(file, path.extname(file))));
      build.onResolve({ filter: new RegExp(`(^|/)(${basenames.join('|')})(\\.[jt]s)?$`) }, async (args) => {
        if (args.kind === 'entry-point' || args.pluginData === 'loaded-apart') return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: 'loaded-apart' });
        const bundle = bundleOf.get(resolved.path);
        return bundle ? { path: bundle, namespace: 'apart' } : undefined;
      });
      // No node:path: the shell's stand-ins run in every window, and each require goes through the extension host's interceptors.
      build.onLoad({ filter: /.*/, namespace: 'apart' }, (args) => ({ contents: `module.exports = require(__dirname + ${JSON.stringify(`/${args.path}.js`)});`, loader: 'js' }));
    },
  };
}

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
 * dist/extension.js is the shell that loads at activation: stand-ins, then the bundles apart. A
 * module in the shell and in a bundle apart would run twice, as two copies: a second state,
 * `instanceof` failing across them, and bytes loaded at activation for nothing. Type-only imports
 * are fine (they vanish).
 */
const SHELL_BUNDLE = path.join('dist', 'extension.js');
const LOADED_BY_SHELL = Object.keys(SOURCES_APART).map((name) => path.join('dist', `${name}.js`));

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
          '\n  Import these in the shell as types only (`import type`) and reach them through a bundle apart (src/vscode/lazyHost.ts).',
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
    entryPoints: { extension: 'src/extension.ts', searchWorker: 'src/tools/searchWorker.ts', ...SOURCES_APART },
    outdir: 'dist',
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    external: ['vscode'],
    alias: ESM_BUILDS,
    plugins: [...common.plugins, loadedApart(), chatWithoutToolCore, shellApartFromHost, shellPlainRequires],
  },
  ...Object.entries(PACKAGES_APART).map(([name, bundle]) => ({
    ...common,
    stdin: { contents: `export * from ${JSON.stringify(name)};`, resolveDir: __dirname, sourcefile: `${name} (loaded apart)` },
    outfile: path.join('dist', `${bundle}.js`),
    format: 'cjs',
    platform: 'node',
    target: 'node20',
  })),
];

/**
 * The `toolbelt` command's work (dist/cliMain.js, which the bin dist/cli.js loads): the core (src/core.ts: tools, providers, Agent)
 * and src/cli, bundled with nothing external, so a `vscode` import anywhere below the core cannot
 * resolve and fails the build. It shares dist/mcpSdk.js and dist/lib-unbash.js with the extension.
 */
const CLI_BUNDLE = path.join('dist', 'cliMain.js');
/** The bin itself: a few lines that load dist/cliMain.js, or dist/hook.js for `toolbelt hook` (src/cli/cli.ts). */
const CLI_BIN = path.join('dist', 'cli.js');
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
  entryPoints: { cliMain: 'src/cli/cliMain.ts' },
  outdir: 'dist',
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  alias: ESM_BUILDS,
  // The chat's runtime is part of the core: followed, not replaced by its stand-in.
  plugins: [...common.plugins, loadedApart({ inline: ['chat'] }), cliThroughCore],
});

// The bin: compiling the core's ~900 KB costs ~30-45 ms, which `toolbelt hook` must not pay.
targets.push({
  ...common,
  entryPoints: { cli: 'src/cli/cli.ts' },
  outdir: 'dist',
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  banner: { js: '#!/usr/bin/env node' },
});

/**
 * `toolbelt hook AGENT` (dist/hook.js): dist/cli.js hands `hook` to it before loading its own
 * core, so each of another agent's tool calls costs only this small bundle (no MCP SDK, no
 * providers). It shares dist/lib-unbash.js, loaded on the first command it judges.
 */
targets.push({
  ...common,
  entryPoints: { hook: 'src/hook.ts' },
  outdir: 'dist',
  format: 'cjs',
  platform: 'node',
  target: 'node20',
  alias: ESM_BUILDS,
  plugins: [...common.plugins, loadedApart()],
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
  if (fs.existsSync(CLI_BIN)) fs.chmodSync(CLI_BIN, 0o755);
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

module.exports = { LOADED_APART, loadedApart, toolCoreInChatBundle, modulesSharedWithShell, wrappedImportsInShell, cliWithoutCore };
