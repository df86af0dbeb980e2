import { randomUUID } from 'node:crypto';
import type { CheckpointStore } from './checkpoints';
import type { ChangeTarget } from '../types';

/** The part of the checkpoint store a call group writes. */
export type GroupStore = Pick<CheckpointStore, 'beginTurn' | 'recordPath' | 'noteSideEffect' | 'endTurn'>;

/**
 * How call groups reach the checkpoint store: the extension's one store directly, the CLI's under
 * a lock shared with other toolbelt processes (stateDir.ts). `withStore` fails when the store
 * cannot be had (opened, or locked within its wait).
 */
export interface StoreAccess {
  withStore<T>(task: (store: GroupStore) => Promise<T>): Promise<T>;
}

/** The undo record of one group of calls: what its calls change is recorded before they change it. */
export interface CallGroup {
  /** The caller's `beforeChange` hook. */
  beforeChange(targets: readonly ChangeTarget[]): Promise<void>;
  /** Ends the group; one that changed nothing leaves no record. */
  end(): Promise<void>;
  /** For the call's result: "This change cannot be undone: …" when something was changed without a record; else undefined. */
  unrecorded(): string | undefined;
}

/**
 * Undo records for callers without chat turns of their own: an MCP client's call, VS Code's chat's
 * call, an `@toolbelt` request, a `toolbelt run`. Each group is a turn of its own in the checkpoint
 * store, begun at its first change, under the caller's chat id and alongside the caller's other
 * groups (a client calling tools in parallel loses none of their records), so undo takes back one
 * group at a time. Recording never stops a call; a change it could not record is named in the
 * group's `unrecorded()` and reported through `onProblem`.
 */
export class CallGroups {
  constructor(
    /** Undefined where nothing can be recorded (a window without a workspace folder). */
    private readonly access: StoreAccess | undefined,
    private readonly onProblem: (message: string) => void = () => undefined,
  ) {}

  begin(chatId: string): CallGroup {
    const turnId = `${chatId}:${randomUUID()}`;
    let begun = false;
    const unrecorded: string[] = [];
    const missed = (what: string, reason: string) => {
      unrecorded.push(`${what} (${reason})`);
      this.onProblem(`${what} was changed without an undo record: ${reason}. This change cannot be undone.`);
    };
    return {
      beforeChange: async (targets) => {
        const access = this.access;
        if (!access) return missed(targets.map((t) => t.display).join(', '), 'there is no place to keep undo records here');
        try {
          await access.withStore(async (store) => {
            if (!begun) {
              store.beginTurn(turnId, chatId, { alongside: true });
              begun = true;
            }
            for (const target of targets) {
              try {
                await store.recordPath(turnId, target);
              } catch (error) {
                store.noteSideEffect(turnId, `${target.display} could not be recorded for undo (${describe(error)}).`);
                missed(target.display, describe(error));
              }
            }
          });
        } catch (error) {
          missed(targets.map((t) => t.display).join(', '), describe(error));
        }
      },
      end: async () => {
        if (!begun) return;
        try {
          await this.access!.withStore((store) => store.endTurn(turnId));
        } catch (error) {
          this.onProblem(`Could not close an undo record: ${describe(error)}`);
        }
      },
      unrecorded: () => (unrecorded.length > 0 ? `This change cannot be undone: ${unrecorded.join('; ')}.` : undefined),
    };
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
