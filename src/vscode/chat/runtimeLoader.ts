import * as path from 'node:path';
import type * as Runtime from '../../agent/runtime';

let runtime: typeof Runtime | undefined;

/**
 * The Agent and the provider SDKs live in a bundle of their own (dist/chat.js), loaded on the
 * first chat turn so activation stays small and fast.
 */
export function loadChatRuntime(): typeof Runtime {
  // A computed path keeps esbuild from inlining the bundle into extension.js.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  runtime ??= require(path.join(__dirname, 'chat.js')) as typeof Runtime;
  return runtime;
}
