import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const vscodeFree = {
  paths: [{ name: 'vscode', message: 'This layer runs without VS Code; keep vscode imports in src/vscode/ and src/extension.ts.' }],
};

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
  {
    files: ['src/tools/**/*.ts', 'src/providers/**/*.ts', 'src/agent/**/*.ts', 'src/chat/**/*.ts', 'src/webview/**/*.ts', 'src/protocol.ts'],
    rules: { 'no-restricted-imports': ['error', vscodeFree] },
  },
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
