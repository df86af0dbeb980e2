import Module from 'node:module';

/**
 * Requires compiled modules fresh with `require('vscode')` answered by `vscode` (a fake of the part
 * of the API they use), then forgets them again, so each test gets its own copies. `files` are
 * absolute paths; the first is returned. List every compiled module that requires `vscode`.
 */
export function requireWithVscode<T>(vscode: unknown, files: string[]): T {
  const resolved = files.map((file) => require.resolve(file));
  const forget = () => resolved.forEach((file) => delete require.cache[file]);
  const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
  const original = loader._load;
  loader._load = function (this: unknown, request, parent, isMain) {
    return request === 'vscode' ? vscode : original.call(this, request, parent, isMain);
  };
  try {
    forget();
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded against the fake API on purpose
    return require(resolved[0]) as T;
  } finally {
    loader._load = original;
    forget();
  }
}
