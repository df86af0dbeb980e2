import * as path from 'node:path';
import type * as vscode from 'vscode';
import { JsonStateFile, stateFolder, type StateStore } from './jsonStateFile';

/** Something with writes in flight that must land before the extension host goes away. */
export interface Flushable {
  flush(): Promise<void>;
}

/**
 * What `deactivate()` waits for. Flushes run newest first, one after another, so a chat that
 * saves into a state file hands its write over before that file flushes. One that fails or
 * hangs does not keep the others from flushing: each gets the same time budget.
 */
export class FlushRegistry {
  private readonly items: Flushable[] = [];

  add(item: Flushable): { dispose(): void } {
    this.items.push(item);
    return {
      dispose: () => {
        const index = this.items.indexOf(item);
        if (index !== -1) this.items.splice(index, 1);
      },
    };
  }

  get size(): number {
    return this.items.length;
  }

  /** Flushes everything; resolves with one line per failure (or timeout), never rejects. */
  async flushAll(timeoutMs = 2000): Promise<string[]> {
    const problems: string[] = [];
    for (const item of [...this.items].reverse()) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<string>((resolve) => (timer = setTimeout(() => resolve(`a flush took longer than ${timeoutMs} ms`), timeoutMs)));
      const flushed = Promise.resolve()
        .then(() => item.flush())
        .then(
          () => undefined,
          (error: unknown) => (error instanceof Error ? error.message : String(error)),
        );
      const problem = await Promise.race([flushed, timeout]);
      clearTimeout(timer);
      if (problem) problems.push(problem);
    }
    return problems;
  }
}

/** The extension's registry; `deactivate()` flushes it. */
export const shutdownFlushes = new FlushRegistry();

/** A state file in the workspace storage folder; without a workspace, the workspace Memento. */
export function stateStore(context: vscode.ExtensionContext, name: string, log?: vscode.LogOutputChannel): StateStore {
  const folder = stateFolder(context);
  log?.info(folder ? `${name} lives in ${folder}.` : `${name}: no workspace storage folder (${context.storageUri?.toString() ?? 'none'}); using workspace state.`);
  if (!folder) return context.workspaceState; // VS Code itself persists Memento writes on shutdown
  const file = new JsonStateFile(path.join(folder, name));
  // Not tied to context.subscriptions: VS Code disposes those right after calling deactivate().
  shutdownFlushes.add(file);
  return file;
}
