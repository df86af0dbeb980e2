import type { ToolbeltApi } from './api';

type Namespace = Exclude<keyof ToolbeltApi, 'activationMs'>;

/**
 * Every member of ToolbeltApi, and whether it returns a promise (1) or a value (0). A member added
 * to ToolbeltApi is a type error here until it is listed too.
 */
const MEMBERS = {
  tools: { available: 0, list: 0, enable: 1, disable: 1, problems: 0, log: 1, policy: 0 },
  chat: { send: 1, undoLastTurn: 1, context: 0 },
  views: { toolsTree: 0 },
} satisfies { [N in Namespace]: Record<keyof ToolbeltApi[N], 0 | 1> };

/**
 * What activate() returns before the host is loaded: every member of ToolbeltApi, each loading
 * the host on its first call and then running the host's own (src/vscode/api.ts createApi).
 * The members that return a promise reject (not throw) if the host cannot start.
 */
export function lazyApi(host: (member: string) => ToolbeltApi, activationMs: number): ToolbeltApi {
  const api: Record<string, unknown> = { activationMs };
  for (const [space, members] of Object.entries(MEMBERS)) {
    const forwarded: Record<string, unknown> = (api[space] = {});
    for (const [member, returnsPromise] of Object.entries(members)) {
      const call = (args: unknown[]): unknown => (host(`api.${space}.${member}`) as unknown as Record<string, Record<string, (...a: unknown[]) => unknown>>)[space][member](...args);
      forwarded[member] = returnsPromise ? async (...args: unknown[]) => call(args) : (...args: unknown[]) => call(args);
    }
  }
  return api as unknown as ToolbeltApi;
}
