import type { ToolbeltApi } from './api';

/**
 * What activate() returns before the host is loaded: every member of ToolbeltApi, each loading
 * the host on its first call and then running the host's own (src/vscode/api.ts createApi).
 * A member added to ToolbeltApi is a type error here until it is forwarded too. The members that
 * return a promise reject (not throw) if the host cannot start.
 */
export function lazyApi(host: (member: string) => ToolbeltApi, activationMs: number): ToolbeltApi {
  return {
    tools: {
      available: () => host('api.tools.available').tools.available(),
      list: () => host('api.tools.list').tools.list(),
      enable: async (name) => host('api.tools.enable').tools.enable(name),
      disable: async (name) => host('api.tools.disable').tools.disable(name),
      problems: () => host('api.tools.problems').tools.problems(),
      log: async () => host('api.tools.log').tools.log(),
      policy: () => host('api.tools.policy').tools.policy(),
    },
    chat: {
      send: async (text) => host('api.chat.send').chat.send(text),
      undoLastTurn: async () => host('api.chat.undoLastTurn').chat.undoLastTurn(),
      context: () => host('api.chat.context').chat.context(),
    },
    views: {
      toolsTree: () => host('api.views.toolsTree').views.toolsTree(),
    },
    activationMs,
  };
}
