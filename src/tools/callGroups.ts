import { randomUUID } from 'node:crypto';
import type { CheckpointStore } from './checkpoints';
import type { ChangeTarget } from './types';

/** The checkpoint store for a while: `release()` once the group that asked for it has ended. */
export interface CheckpointLease {
  store: Pick<CheckpointStore, 'beginTurn' | 'recordPath' | 'noteSideEffect' | 'endTurn'>;
  release(): Promise<void>;
}

/** The undo record of one group of calls: what its calls change is recorded before they change it. */
export interface CallGroup {
  /** The caller's `beforeChange` hook. */
  beforeChange(targets: readonly ChangeTarget[]): Promise<void>;
  /** Ends the group; one that changed nothing leaves no record. */
  end(): Promise<void>;
}

/**
 * Undo records for callers without chat turns (an MCP client's call, a headless run): each group
 * is a turn of its own in the checkpoint store under the caller's chat id, begun at its first
 * change, so undo takes back one group at a time. Recording never fails a call: a path that
 * could not be recorded is noted on the group as not undoable.
 */
export class CallGroups {
  constructor(
    private readonly lease: () => Promise<CheckpointLease | undefined>,
    private readonly onProblem: (message: string) => void = () => undefined,
  ) {}

  begin(chatId: string): CallGroup {
    let begun: Promise<{ lease: CheckpointLease; turnId: string } | undefined> | undefined;
    const start = async () => {
      const lease = await this.lease().catch((error: unknown) => void this.onProblem(`Undo records are unavailable: ${describe(error)}`));
      if (!lease) return undefined;
      const turnId = `${chatId}:${randomUUID()}`;
      try {
        lease.store.beginTurn(turnId, chatId);
      } catch (error) {
        await lease.release();
        this.onProblem(`Could not begin an undo record: ${describe(error)}`);
        return undefined;
      }
      return { lease, turnId };
    };
    return {
      beforeChange: async (targets) => {
        begun ??= start();
        const group = await begun;
        if (!group) return;
        for (const target of targets) {
          try {
            await group.lease.store.recordPath(group.turnId, target);
          } catch (error) {
            group.lease.store.noteSideEffect(group.turnId, `${target.display} could not be recorded for undo (${describe(error)}).`);
            this.onProblem(`Could not record ${target.display} for undo: ${describe(error)}`);
          }
        }
      },
      end: async () => {
        const group = await begun;
        if (!group) return;
        try {
          await group.lease.store.endTurn(group.turnId);
        } catch (error) {
          this.onProblem(`Could not close an undo record: ${describe(error)}`);
        } finally {
          await group.lease.release();
        }
      },
    };
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
