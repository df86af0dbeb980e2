import { randomUUID } from 'node:crypto';
import { TurnCheckpoints } from '../chat/turnCheckpoints';
import { CheckpointStore } from '../tools/checkpoints';
import type { ChangeTarget } from '../tools/types';

const stores = new Map<string, Promise<CheckpointStore>>();

/** The workspace's one checkpoint store: the panel's turns and every other caller's call groups share it (one writer of its index). */
export function openCheckpoints(dir: string): Promise<CheckpointStore> {
  let store = stores.get(dir);
  if (!store) {
    store = CheckpointStore.open(dir);
    stores.set(dir, store);
    store.catch(() => stores.delete(dir));
  }
  return store;
}

/** The undo record of one group of calls: what its calls change is recorded before they change it. */
export interface CallGroup {
  beforeChange(targets: readonly ChangeTarget[]): Promise<void>;
  /** Ends the group; one that changed nothing leaves no record. */
  end(): Promise<void>;
}

/**
 * Undo records for callers other than the panel: one group per `@toolbelt` request, one per call
 * from VS Code's chat. Each group is a turn of its own in the checkpoint store, begun at its first
 * change, under the caller's chat id, so it never lands in the undo of a panel turn running meanwhile.
 */
export class CallGroups {
  constructor(
    private readonly dir: string | undefined,
    private readonly onProblem: (message: string) => void,
  ) {}

  begin(chatId: string): CallGroup {
    const dir = this.dir;
    const turn = new TurnCheckpoints(() => (dir ? openCheckpoints(dir) : Promise.resolve(undefined)), this.onProblem);
    let begun: Promise<void> | undefined;
    return {
      beforeChange: async (targets) => {
        begun ??= turn.begin(`${chatId}:${randomUUID()}`, chatId);
        await begun;
        await turn.beforeChange(targets);
      },
      end: async () => {
        if (!begun) return;
        await begun;
        await turn.end();
      },
    };
  }
}
