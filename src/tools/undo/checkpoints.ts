import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { readIndex, writeIndex, type StoredTurn } from './checkpointIndex';
import { undoTurnPaths, type UndoOptions, type UndoResult } from './checkpointRestore';
import { filesOf, missingFiles, realParentPath, scan, signature, type MissingFile } from './checkpointSnapshots';
import { exists, isInside } from '../pathChecks';
import type { ResolvedPath } from '../workspacePaths';
import { isAlive } from '../sandbox';
import { DEFAULT_SENSITIVE_GLOBS, sensitiveGlobFor } from '../sensitiveFiles';
import type { ChangeTarget } from '../types';

/*
 * Per-turn checkpoints. Before a chat turn's tools change a path, the store keeps what is needed to
 * put it back: a file's bytes and mode, a link's target (never followed), a folder's whole tree, or
 * the path's absence. It lives in a folder of its own (the extension's storage), never in the
 * user's git. Layout:
 *   <dir>/index.json      every turn, its paths and their snapshots (written atomically)
 *   <dir>/blobs/<sha256>  file contents, shared between turns, deleted when no turn refers to them
 * Undo itself (comparing each path with what the turn left, and putting it back) is in
 * checkpointRestore.ts. Undo writes only inside the workspace folders the store's opener serves
 * (`roots`), whatever the index says. Several processes may share one store (the CLI's MCP servers
 * and `toolbelt undo`, under the lock of stateDir.ts): a running turn names its process, and only
 * that process changes it until it ends; `reload` reads what the others wrote.
 */

export interface CheckpointLimits {
  /** Total bytes of stored copies; the oldest turns are dropped beyond it. */
  maxTotalBytes: number;
  /** Turns that ended longer ago than this are dropped. */
  maxAgeMs: number;
  maxTurns: number;
  /** Files bigger than this are not copied: their turn cannot bring them back. */
  maxFileBytes: number;
}

export const DEFAULT_CHECKPOINT_LIMITS: CheckpointLimits = {
  maxTotalBytes: 200 * 1024 * 1024,
  maxAgeMs: 7 * 24 * 60 * 60 * 1000,
  maxTurns: 100,
  maxFileBytes: 20 * 1024 * 1024,
};

export interface TurnSummary {
  turnId: string;
  chatId: string;
  startedAt: number;
  endedAt?: number;
  running: boolean;
  undone: boolean;
  /** Whether `undoLastTurn(chatId)` would undo this turn now. */
  next: boolean;
  paths: string[];
  notes: string[];
  /** Paths (or files inside removed folders) that undo cannot bring back, and why. */
  incomplete: MissingFile[];
}

export interface DroppedTurn {
  turnId: string;
  chatId: string;
  startedAt: number;
  reason: 'age' | 'count' | 'size';
}

export class CheckpointError extends Error {}

export class CheckpointStore {
  private queue: Promise<unknown> = Promise.resolve();
  /** Turns that an earlier session left and `open` dropped under the limits. */
  droppedAtOpen: DroppedTurn[] = [];

  private constructor(
    readonly dir: string,
    private readonly roots: () => readonly string[],
    readonly limits: CheckpointLimits,
    private readonly clock: () => number,
    private turnList: StoredTurn[],
  ) {}

  /**
   * Opens (or creates) the store in `dir` for a caller serving the workspace folders `roots`
   * returns (asked at each undo); closes turns a reload interrupted, then prunes.
   */
  static async open(dir: string, roots: () => readonly string[], limits: Partial<CheckpointLimits> = {}, clock: () => number = Date.now): Promise<CheckpointStore> {
    await fs.mkdir(path.join(dir, 'blobs'), { recursive: true, mode: 0o700 });
    const store = new CheckpointStore(dir, roots, { ...DEFAULT_CHECKPOINT_LIMITS, ...limits }, clock, await readIndex(dir));
    // This process opens a store once: a turn of its own process in the index was left by an earlier store.
    await store.closeInterrupted((turn) => turn.pid === undefined || turn.pid === process.pid || !isAlive(turn.pid));
    store.droppedAtOpen = store.pruneNow();
    await store.save();
    await store.collectGarbage();
    return store;
  }

  /**
   * Reads the index again (another process may have written it) and keeps this process's running
   * turns as they are here; closes the running turns of processes that are gone.
   */
  reload(): Promise<void> {
    return this.serial(async () => {
      const own = new Map(this.turnList.filter((t) => this.isOwnRunning(t)).map((t) => [t.turnId, t]));
      const stored = await readIndex(this.dir);
      this.turnList = [...stored.map((t) => own.get(t.turnId) ?? t), ...[...own.values()].filter((t) => !stored.some((s) => s.turnId === t.turnId))];
      if (await this.closeInterrupted((turn) => !this.isOwnRunning(turn) && (turn.pid === undefined || !isAlive(turn.pid)))) await this.save();
    });
  }

  /**
   * Starts recording a turn. A turn of the same chat still open is closed first, unless the new one
   * runs `alongside` it (each call of a client that calls tools in parallel has a turn of its own).
   */
  beginTurn(turnId: string, chatId: string, options: { alongside?: boolean } = {}): void {
    if (this.turnList.some((t) => t.turnId === turnId)) throw new CheckpointError(`Turn ${turnId} already exists.`);
    if (!options.alongside) {
      for (const open of this.turnList.filter((t) => t.chatId === chatId && t.endedAt === undefined)) {
        this.serial(() => this.close(open).then(() => this.save())).catch(() => undefined);
      }
    }
    this.turnList.push({ turnId, chatId, startedAt: this.clock(), pid: process.pid, storedBytes: 0, notes: [], entries: [] });
  }

  /**
   * Records a path's state before a tool changes it, with any missing parent folders the change
   * will create. Only the first call per path per turn records; later ones are no-ops.
   */
  recordBefore(turnId: string, absolutePath: string, workspaceRoot: string, options: { rootLabel?: string; noCopyOf?: readonly string[] } = {}): Promise<void> {
    return this.serial(async () => {
      const turn = this.runningTurn(turnId);
      const root = await fs.realpath(workspaceRoot);
      const target = await realParentPath(absolutePath);
      if (!isInside(root, target) || target === root) throw new CheckpointError(`"${absolutePath}" is not inside the workspace folder ${root}.`);
      const chain = [target];
      for (let dir = path.dirname(target); dir !== root && !(await exists(dir)); dir = path.dirname(dir)) chain.unshift(dir);
      for (const abs of chain) {
        if (turn.entries.some((e) => e.path === abs)) continue;
        const relative = path.relative(root, abs).split(path.sep).join('/');
        const display = options.rootLabel ? `${options.rootLabel}/${relative}` : relative;
        const budget = { remaining: this.limits.maxTotalBytes - turn.storedBytes };
        try {
          const noCopyOf = options.noCopyOf;
          const secret = noCopyOf ? (file: string) => sensitiveGlobFor(noCopyOf, [path.relative(root, file).split(path.sep).join('/')]) !== undefined : undefined;
          const before = await scan(abs, this.limits.maxFileBytes, { blobs: this.blobDir, budget, ...(secret ? { secret } : {}) });
          turn.entries.push({ path: abs, display, before, beforeSig: signature(before) });
        } catch (error) {
          // The tool still runs; undo will leave this path alone and say why.
          const unsaved = `its state before the turn could not be saved (${(error as Error).message})`;
          turn.entries.push({ path: abs, display, before: { kind: 'absent' }, beforeSig: 'unsaved', unsaved });
        }
        turn.storedBytes = this.limits.maxTotalBytes - budget.remaining;
      }
      await this.save();
    });
  }

  /** `recordBefore` for a path as the file tools resolve it (`resolveWorkspacePath`). */
  recordPath(turnId: string, target: Pick<ResolvedPath, 'absolute' | 'root' | 'relative' | 'display'> & Pick<ChangeTarget, 'unapproved'>): Promise<void> {
    const label = target.display !== target.relative ? target.display.slice(0, -target.relative.length - 1) : undefined;
    const noCopyOf = target.unapproved ? (target.unapproved.sensitiveGlobs ?? DEFAULT_SENSITIVE_GLOBS) : undefined;
    return this.recordBefore(turnId, target.absolute, target.root, { rootLabel: label || undefined, ...(noCopyOf ? { noCopyOf } : {}) });
  }

  /** Optional, after each tool's change: keeps what it left, should the turn never end (a reload). */
  recordAfter(turnId: string, absolutePath: string): Promise<void> {
    return this.serial(async () => {
      const turn = this.runningTurn(turnId);
      const target = await realParentPath(absolutePath);
      for (const entry of turn.entries) {
        if (isInside(entry.path, target) || isInside(target, entry.path)) entry.afterSig = await this.signatureOf(entry.path);
      }
      await this.save();
    });
  }

  /** Marks something the turn did that undo cannot reach (shown on the turn and in undo results). */
  noteSideEffect(turnId: string, note: string): void {
    const turn = this.runningTurn(turnId);
    if (!turn.notes.includes(note)) turn.notes.push(note);
  }

  /** Records what the turn left at each path, then prunes; returns the turns dropped. */
  endTurn(turnId: string): Promise<DroppedTurn[]> {
    return this.serial(async () => {
      const turn = this.turnList.find((t) => t.turnId === turnId);
      if (turn && turn.endedAt === undefined) await this.close(turn);
      const dropped = this.pruneNow();
      await this.save();
      await this.collectGarbage();
      return dropped;
    });
  }

  /** Undoes the newest turn not yet undone (of `chatId`, when given); undefined when there is none. */
  undoLastTurn(chatId?: string, options: UndoOptions = {}): Promise<UndoResult | undefined> {
    return this.serial(async () => {
      const turn = this.nextToUndo(chatId);
      return turn && (await this.undo(turn, options));
    });
  }

  /** Undoes `turnId`, only when it is the newest turn of its chat not yet undone. */
  undoTurn(turnId: string, options: UndoOptions = {}): Promise<UndoResult> {
    return this.serial(async () => {
      const turn = this.turnList.find((t) => t.turnId === turnId);
      if (!turn) throw new CheckpointError(`Turn ${turnId} cannot be undone: no checkpoint is kept for it (it changed no file, or it was dropped).`);
      if (turn.undoneAt !== undefined) throw new CheckpointError(`Turn ${turnId} was already undone.`);
      if (this.nextToUndo(turn.chatId) !== turn) throw new CheckpointError(`Turn ${turnId} cannot be undone before the newer turns of its chat.`);
      return this.undo(turn, options);
    });
  }

  /** Turns with a checkpoint, newest first. */
  turns(chatId?: string): TurnSummary[] {
    const next = new Set(this.turnList.map((t) => this.peekNext(t.chatId)));
    return this.turnList
      .filter((t) => chatId === undefined || t.chatId === chatId)
      .reverse()
      .map((t) => ({
        turnId: t.turnId,
        chatId: t.chatId,
        startedAt: t.startedAt,
        endedAt: t.endedAt,
        running: t.endedAt === undefined,
        undone: t.undoneAt !== undefined,
        next: next.has(t) && t.endedAt !== undefined,
        paths: t.entries.map((e) => e.display),
        notes: [...t.notes],
        incomplete: t.entries.flatMap((e) => (e.unsaved ? [{ path: e.display, reason: e.unsaved }] : missingFiles(e.before, e.display))),
      }));
  }

  /** Applies the age, count and size bounds now; returns the turns dropped. */
  prune(): Promise<DroppedTurn[]> {
    return this.serial(async () => {
      const dropped = this.pruneNow();
      await this.save();
      await this.collectGarbage();
      return dropped;
    });
  }

  private get blobDir(): string {
    return path.join(this.dir, 'blobs');
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private runningTurn(turnId: string): StoredTurn {
    const turn = this.turnList.find((t) => t.turnId === turnId);
    if (!turn) throw new CheckpointError(`Turn ${turnId} was not begun.`);
    if (turn.endedAt !== undefined) throw new CheckpointError(`Turn ${turnId} has already ended.`);
    return turn;
  }

  private isOwnRunning(turn: StoredTurn): boolean {
    return turn.endedAt === undefined && turn.pid === process.pid;
  }

  /** Closes the running turns `interrupted` picks, keeping what `recordAfter` saw; whether there were any. */
  private async closeInterrupted(interrupted: (turn: StoredTurn) => boolean): Promise<boolean> {
    const turns = this.turnList.filter((t) => t.endedAt === undefined && interrupted(t));
    for (const turn of turns) await this.close(turn, { keepRecordedAfter: true });
    return turns.length > 0;
  }

  private peekNext(chatId?: string): StoredTurn | undefined {
    return this.turnList.filter((t) => t.undoneAt === undefined && (chatId === undefined || t.chatId === chatId)).at(-1);
  }

  private nextToUndo(chatId?: string): StoredTurn | undefined {
    const turn = this.peekNext(chatId);
    if (turn && turn.endedAt === undefined) throw new CheckpointError(`Turn ${turn.turnId} is still running; undo it once it has finished.`);
    return turn;
  }

  /**
   * Ends a turn with what it left at each path. A turn a reload interrupted keeps the states
   * `recordAfter` saw, so an edit made before the reopen still counts as the person's.
   */
  private async close(turn: StoredTurn, options: { keepRecordedAfter?: boolean } = {}): Promise<void> {
    for (const entry of turn.entries) {
      if (options.keepRecordedAfter && entry.afterSig !== undefined) continue;
      entry.afterSig = await this.signatureOf(entry.path);
    }
    // An unchanged path can go, unless a folder around it was recorded later: undoing that folder
    // brings back the path's state of that moment, which the path's own entry then corrects.
    turn.entries = turn.entries.filter(
      (e, i) => e.afterSig !== e.beforeSig || turn.entries.slice(i + 1).some((later) => isInside(later.path, e.path)),
    );
    turn.endedAt = this.clock();
    if (turn.entries.length === 0 && turn.notes.length === 0) this.turnList = this.turnList.filter((t) => t !== turn);
  }

  private async undo(turn: StoredTurn, options: UndoOptions): Promise<UndoResult> {
    const storage = { blobDir: this.blobDir, maxFileBytes: this.limits.maxFileBytes, roots: this.roots() };
    const { result, kept } = await undoTurnPaths(turn, storage, options);
    turn.undoneAt = this.clock();
    turn.entries = kept;
    if (kept.length === 0) this.turnList = this.turnList.filter((t) => t !== turn);
    await this.save();
    await this.collectGarbage();
    return result;
  }

  /** A path that cannot be read gets a signature no state has, so undo leaves it alone. */
  private signatureOf(abs: string): Promise<string> {
    return scan(abs, this.limits.maxFileBytes).then(signature, (error: Error) => `unreadable:${error.message}`);
  }

  private pruneNow(): DroppedTurn[] {
    const now = this.clock();
    const dropped: DroppedTurn[] = [];
    const drop = (turn: StoredTurn, reason: DroppedTurn['reason']) => {
      this.turnList = this.turnList.filter((t) => t !== turn);
      if (turn.undoneAt === undefined) dropped.push({ turnId: turn.turnId, chatId: turn.chatId, startedAt: turn.startedAt, reason });
    };
    const ended = () => this.turnList.filter((t) => t.endedAt !== undefined);
    for (const turn of ended()) if (now - (turn.endedAt as number) > this.limits.maxAgeMs) drop(turn, 'age');
    while (ended().length > this.limits.maxTurns) drop(ended()[0], 'count');
    while (this.storedBytes() > this.limits.maxTotalBytes && ended().length > 0) drop(ended()[0], 'size');
    return dropped;
  }

  private storedBytes(): number {
    const sizes = new Map<string, number>();
    for (const turn of this.turnList) for (const e of turn.entries) for (const f of filesOf(e.before)) if (f.stored) sizes.set(f.hash, f.size);
    return [...sizes.values()].reduce((a, b) => a + b, 0);
  }

  private async collectGarbage(): Promise<void> {
    const referenced = new Set(this.turnList.flatMap((t) => t.entries.flatMap((e) => filesOf(e.before).filter((f) => f.stored).map((f) => f.hash))));
    // A store folder that became unreadable only leaves unused copies behind.
    const names = await fs.readdir(this.blobDir).catch(() => [] as string[]);
    for (const name of names) {
      if (!referenced.has(name)) await fs.rm(path.join(this.blobDir, name), { force: true });
    }
  }

  private save(): Promise<void> {
    return writeIndex(this.dir, this.turnList);
  }
}
