import type * as Runtime from '../../agent/runtime';

/**
 * The Agent and the provider SDKs, bundled apart (dist/chat.js, docs/ARCHITECTURE.md, "Bundles"):
 * loaded on the first chat turn, not with the host.
 */
export function loadChatRuntime(): typeof Runtime {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded apart, on first use (esbuild.js LOADED_APART)
  return require('../../agent/runtime') as typeof Runtime;
}
