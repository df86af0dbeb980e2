import type { UndoOptions, UndoResult } from '../tools/undo';
import type { CheckpointStore, DroppedTurn, TurnSummary } from '../tools/undo';
import type { ChangeTarget } from '../tools/types';

/** The part of the checkpoint store a chat needs. */
export type CheckpointStoreLike = Pick<CheckpointStore, 'beginTurn' | 'recordPath' | 'noteSideEffect' | 'endTurn' | 'undoTurn' | 'undoLastTurn' | 'turns'>;

/** What a finished turn changed, for the panel's turn row. */
export interface TurnRecord {
  /** Undefined when the turn changed nothing and ran no command. */
  summary?: TurnSummary;
  /** Older turns whose undo records were dropped to keep the store within its bounds. */
  dropped: DroppedTurn[];
}

/**
 * Records what one chat's turns change, through the checkpoint store (opened on first use), so
 * "Undo this turn" can put it back. Recording never fails a tool: a path that could not be
 * recorded is noted on the turn as not undoable.
 */
export class TurnCheckpoints {
  private store: Promise<CheckpointStoreLike | undefined> | undefined;
  private current: { turnId: string; store: CheckpointStoreLike } | undefined;
  /** Stored copies of files an undo skipped, by turn and path, for Compare. */
  private readonly skipped = new Map<string, { before: string; absolute: string }>();

  constructor(
    private readonly open: () => Promise<CheckpointStoreLike | undefined>,
    private readonly onProblem: (message: string) => void = () => undefined,
  ) {}

  async begin(turnId: string, chatId: string): Promise<void> {
    const store = await this.opened();
    if (!store) return;
    store.beginTurn(turnId, chatId);
    this.current = { turnId, store };
  }

  /** The ToolContext hook: called right before a tool of the running turn changes `targets`. */
  async beforeChange(targets: readonly ChangeTarget[]): Promise<void> {
    const current = this.current;
    if (!current) return;
    for (const target of targets) {
      try {
        await current.store.recordPath(current.turnId, target);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        current.store.noteSideEffect(current.turnId, `${target.display} could not be recorded for undo (${reason}).`);
        this.onProblem(`Could not record ${target.display} for undo: ${reason}`);
      }
    }
  }

  noteSideEffect(note: string): void {
    if (this.current) this.current.store.noteSideEffect(this.current.turnId, note);
  }

  /** Ends the running turn: what it changed, and which older records were dropped. */
  async end(): Promise<TurnRecord | undefined> {
    const current = this.current;
    this.current = undefined;
    if (!current) return undefined;
    const dropped = await current.store.endTurn(current.turnId).catch((error: unknown) => {
      this.onProblem(`Could not finish the undo record of a turn: ${String(error)}`);
      return [] as DroppedTurn[];
    });
    const summary = current.store.turns().find((t) => t.turnId === current.turnId);
    const changed = summary && (summary.paths.length > 0 || summary.notes.length > 0);
    return { summary: changed ? summary : undefined, dropped };
  }

  async undoTurn(turnId: string, options: UndoOptions = {}): Promise<UndoResult> {
    const store = await this.opened();
    if (!store) throw new Error('Undo is not available: this workspace has no storage folder.');
    return this.remember(await store.undoTurn(turnId, options));
  }

  async undoLastTurn(chatId: string, options: UndoOptions = {}): Promise<UndoResult | undefined> {
    const store = await this.opened();
    const result = await store?.undoLastTurn(chatId, options);
    return result && this.remember(result);
  }

  /** The stored copy of a file an undo skipped (as it was before the turn; '' when it did not exist), and the file now. */
  skippedCopy(turnId: string, path: string): { before: string; absolute: string } | undefined {
    return this.skipped.get(`${turnId}\n${path}`);
  }

  private remember(result: UndoResult): UndoResult {
    for (const skip of result.skipped) if (skip.absolute) this.skipped.set(`${result.turnId}\n${skip.path}`, { before: skip.before ?? '', absolute: skip.absolute });
    return result;
  }

  private opened(): Promise<CheckpointStoreLike | undefined> {
    this.store ??= this.open().catch((error: unknown) => {
      this.onProblem(`Undo is not available: the checkpoint store could not be opened (${String(error)}).`);
      return undefined;
    });
    return this.store;
  }
}
