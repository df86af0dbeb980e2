import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const vscodeFree = [{ name: 'vscode', message: 'This layer runs without VS Code; keep vscode imports in src/vscode/ and src/extension.ts.' }];

/**
 * The layers, lowest first: tools < providers < agent < chat < vscode. A layer imports only from
 * the layers below it (types too: a type import is a dependency all the same); the webview
 * imports only the protocol; the protocol imports nothing. The CLI (src/cli) sits on the core
 * (tools, providers, agent) beside chat, never on chat or vscode. docs/ARCHITECTURE.md explains them.
 */
const above = (...layers) => ({
  regex: `^(\\.\\./)+(${layers.join('|')})(/|$)`,
  message: `This layer sits below ${layers.join(', ')}: it may not import them (see docs/ARCHITECTURE.md, "Layers").`,
});
const layerRule = (...patterns) => ['error', { paths: vscodeFree, patterns }];
const layers = [
  { files: ['src/tools/**/*.ts'], rule: layerRule(above('providers', 'agent', 'chat', 'vscode', 'webview', 'protocol', 'core', 'cli')) },
  { files: ['src/providers/**/*.ts'], rule: layerRule(above('agent', 'chat', 'vscode', 'webview', 'protocol', 'core', 'cli')) },
  { files: ['src/agent/**/*.ts'], rule: layerRule(above('chat', 'vscode', 'webview', 'protocol', 'core', 'cli')) },
  { files: ['src/chat/**/*.ts'], rule: layerRule(above('vscode', 'webview', 'core', 'cli')) },
  {
    files: ['src/webview/**/*.ts'],
    rule: layerRule({ regex: '^\\.\\./(?!protocol$)', message: 'The webview runs in the browser and imports only ../protocol and its own modules.' }),
  },
  { files: ['src/cli/**/*.ts'], rule: layerRule(above('chat', 'vscode', 'webview', 'protocol')) },
  { files: ['src/core.ts'], rule: layerRule({ regex: '^\\./(chat|vscode|webview|protocol|cli)(/|$)', message: 'The core is tools, providers and the Agent: no chat, vscode or webview.' }) },
  { files: ['src/protocol.ts'], rule: layerRule({ regex: '^\\.', message: 'protocol.ts is shared by the host and the webview: it imports nothing.' }) },
];

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
  ...layers.map(({ files, rule }) => ({ files, rules: { 'no-restricted-imports': rule } })),
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
