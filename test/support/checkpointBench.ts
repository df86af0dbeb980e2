import * as path from 'node:path';
import { CheckpointStore, type CheckpointLimits, type DroppedTurn } from '../../src/tools/undo/checkpoints';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import type { ToolRegistry } from '../../src/tools/registry';
import { contextFor, TempWorkspace } from './workspace';

/** `n` bytes of a repeatable pattern (binary content for the checkpoint tests). */
export const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));

/**
 * The checkpoint tests' setting: a temp workspace, the real file tools (remove enabled) and a
 * checkpoint store outside the workspace on a fake clock. `CheckpointBench.use()` sets up a fresh
 * one before each test of the calling `describe` and deletes it after.
 */
export class CheckpointBench {
  ws!: TempWorkspace;
  store!: CheckpointStore;
  storeDir!: string;
  /** The fake clock's time; tests move it forward. */
  now = 0;
  readonly clock = () => this.now;
  /** The workspace folders undo may write in: the temp workspace's. */
  readonly roots = () => [this.ws.root];
  private registry!: ToolRegistry;
  private turnCount = 0;

  static use(): CheckpointBench {
    const bench = new CheckpointBench();
    beforeEach(() => bench.setUp());
    afterEach(() => bench.ws.dispose());
    return bench;
  }

  /** (Re)opens the store with these limits; `store` is then the new one. */
  readonly open = async (limits: Partial<CheckpointLimits> = {}): Promise<CheckpointStore> =>
    (this.store = await CheckpointStore.open(this.storeDir, this.roots, limits, this.clock));

  /** Runs a real file tool the way the wiring will: record every path it touches, then run it. */
  readonly tool = async (turnId: string, name: string, args: Record<string, unknown>): Promise<string> => {
    for (const key of ['path', 'source', 'destination']) {
      if (typeof args[key] === 'string') await this.store.recordBefore(turnId, this.ws.path(args[key] as string), this.ws.root);
    }
    return this.registry.execute(name, args);
  };

  /** One chat turn: begin, the given steps, end; returns the turn id and the turns dropped at its end. */
  readonly turn = async (steps: (turnId: string) => Promise<unknown>, chatId = 'chat-1'): Promise<{ turnId: string; dropped: DroppedTurn[] }> => {
    const turnId = `turn-${++this.turnCount}`;
    this.store.beginTurn(turnId, chatId);
    await steps(turnId);
    const dropped = await this.store.endTurn(turnId);
    return { turnId, dropped };
  };

  private async setUp(): Promise<void> {
    this.ws = await TempWorkspace.create({ 'keep.txt': 'keep\n', 'notes/todo.md': '# todo\n- one\n', 'src/app.ts': 'export const app = 1;\n' });
    this.registry = createDefaultToolRegistry(contextFor(this.ws, { answer: true }));
    this.registry.enable('remove');
    this.storeDir = path.join(this.ws.parent, 'storage', 'checkpoints');
    this.now = Date.UTC(2026, 0, 1);
    this.turnCount = 0;
    await this.open();
  }
}
