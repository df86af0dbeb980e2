import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const vscodeFree = [{ name: 'vscode', message: 'This layer runs without VS Code; keep vscode imports in src/vscode/ and src/extension.ts.' }];

/**
 * The layers, lowest first: common and protocol (import nothing) < tools < policy < providers <
 * agent < chat < vscode < extension.ts. A layer imports only from the layers below it (types too: a type
 * import is a dependency all the same); the webview imports only the protocol and common; the CLI
 * (src/cli) sits on the core (tools, providers, agent) beside chat, never on chat or vscode, and
 * nothing but the CLI imports the CLI. docs/ARCHITECTURE.md explains them.
 *
 * Each zone is one regular expression of the relative paths a file there may not name, checked on
 * static imports and re-exports and on `import()`, `require()` and `import x = require()`, so a
 * lazily loaded module obeys the same layers.
 */
const relativeTo = (prefix, layers) => `^${prefix}(${layers.join('|')})(/|$)`;
const above = (...layers) => ({
  regex: relativeTo('(\\.\\./)+', layers),
  message: `This layer sits below ${layers.join(', ')}: it may not import them (see docs/ARCHITECTURE.md, "Layers").`,
});
const zones = [
  { files: ['src/common/**/*.ts'], forbid: { regex: '^\\.\\./', message: 'src/common is shared by the host and the webview: it imports nothing outside itself.' } },
  { files: ['src/tools/**/*.ts'], forbid: above('policy', 'providers', 'agent', 'chat', 'vscode', 'webview', 'protocol', 'core', 'cli') },
  { files: ['src/policy/**/*.ts'], forbid: above('providers', 'agent', 'chat', 'vscode', 'webview', 'protocol', 'core', 'cli') },
  { files: ['src/providers/**/*.ts'], forbid: above('agent', 'chat', 'vscode', 'webview', 'protocol', 'core', 'cli') },
  { files: ['src/agent/**/*.ts'], forbid: above('chat', 'vscode', 'webview', 'protocol', 'core', 'cli') },
  { files: ['src/chat/**/*.ts'], forbid: above('vscode', 'webview', 'core', 'cli') },
  { files: ['src/cli/**/*.ts'], forbid: above('chat', 'vscode', 'webview', 'protocol') },
  { files: ['src/vscode/**/*.ts'], forbid: above('webview', 'core', 'cli') },
  { files: ['src/webview/**/*.ts'], forbid: { regex: '^\\.\\./(?!(protocol|common/[\\w.-]+)$)', message: 'The webview runs in the browser and imports only ../protocol, ../common and its own modules.' } },
  { files: ['src/extension.ts'], forbid: { regex: '^\\./(?!vscode/)', message: 'extension.ts is the thin shell: it imports only src/vscode.' } },
  { files: ['src/core.ts'], forbid: { regex: relativeTo('\\./', ['chat', 'vscode', 'webview', 'protocol', 'cli']), message: 'The core is tools, providers and the Agent: no chat, vscode, webview or CLI.' } },
  { files: ['src/protocol.ts'], forbid: { regex: '^\\.(?!/common/[\\w.-]+$)', message: 'protocol.ts is shared by the host and the webview: it imports only src/common.' } },
];

/**
 * The rooms of src/tools: each folder has one entry (its index.ts; the sandbox's is src/tools/sandbox.ts,
 * a name the public contract keeps), and outside the room only the entry is imported.
 */
const ROOMS = ['command', 'sandbox', 'undo', 'agents', 'mcp'];
const ROOM_ENTRIES = ['src/tools/sandbox.ts', ...ROOMS.filter((room) => room !== 'sandbox').map((room) => `src/tools/${room}/index.ts`)];
const intoRoom = {
  regex: `^(\\.\\.?/)+(tools/)?(${ROOMS.join('|')})/`,
  message: `Outside a room of src/tools (${ROOMS.join(', ')}), import only its entry (e.g. '../tools/sandbox', './command'), not a file inside it.`,
};

/** esquery reads a regex literal up to the next "/": the zone's slashes are written as \x2F. */
const selectorRegex = (regex) => `/${regex.replaceAll('/', '\\x2F')}/`;
const zoneRules = ({ forbid }, { rooms = true } = {}) => {
  const forbidden = rooms ? [forbid, intoRoom] : [forbid];
  return {
    'no-restricted-imports': ['error', { paths: vscodeFree, patterns: forbidden }],
    'no-restricted-syntax': [
      'error',
      ...forbidden.flatMap(({ regex, message }) => {
        const source = selectorRegex(regex);
        return [
          `ImportExpression[source.value=${source}]`,
          `CallExpression[callee.name='require'][arguments.0.value=${source}]`,
          `TSExternalModuleReference[expression.value=${source}]`,
          `TSImportType[argument.literal.value=${source}]`,
        ].map((selector) => ({ selector, message }));
      }),
    ],
  };
};
// vscode itself may be imported only where VS Code runs: src/vscode and the shell.
const vscodeZones = new Set(['src/vscode/**/*.ts', 'src/extension.ts']);

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', '.cache/**', 'test-results/**'] },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      'no-eval': 'error',
      'no-new-func': 'error',
    },
  },
  ...zones.map((zone) => {
    const rules = zoneRules(zone);
    if (zone.files.some((glob) => vscodeZones.has(glob))) rules['no-restricted-imports'] = ['error', { patterns: [zone.forbid, intoRoom] }];
    return { files: zone.files, rules };
  }),
  // A room's entry names the files inside it.
  { files: ROOM_ENTRIES, rules: zoneRules(zones.find((zone) => zone.files.includes('src/tools/**/*.ts')), { rooms: false }) },
  {
    files: ['src/webview/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
