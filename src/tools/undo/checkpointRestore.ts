import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { PathEntry, StoredTurn } from './checkpointIndex';
import { assertRealFoldersInside, checkBlobs, checkSnapshot, filesOf, materialize, scan, signature, type MissingFile, type Snapshot } from './checkpointSnapshots';
import { isInside } from '../pathChecks';
import { isProtectedPath } from '../protectedPaths';

/*
 * Undo of one checkpointed turn. It walks the turn's paths in reverse order of their first change,
 * so a path changed several times goes back to its state before the first change, and leaves alone
 * any path whose state is no longer what the turn left there. The record itself is not trusted:
 * before anything is written, each path is placed inside the workspace folders the caller serves
 * now (never the folder the record names) and each stored state is checked for its shape.
 */

export interface UndoSkip extends MissingFile {
  /** The path on disk (set for the paths the turn's tools named), for the diff's right side. */
  absolute?: string;
  /** The stored copy of the file as it was before the turn, to diff against the current file. */
  before?: string;
}

export interface UndoResult {
  turnId: string;
  chatId: string;
  /** Every path that is as it was before the turn now (those below included). */
  restored: string[];
  /** Of `restored`: files and folders the turn had created, removed again. */
  removed?: string[];
  /** Of `restored`: paths that were already as before the turn (nothing had to be done). */
  unchanged?: string[];
  skipped: UndoSkip[];
  /** What the turn did that no undo reaches, e.g. `run_bash` side effects. */
  notes: string[];
}

/** Where the stored copies are, the size above which a file was never copied, and the workspace folders undo may write in. */
export interface RestoreStorage {
  blobDir: string;
  maxFileBytes: number;
  /** The folders the caller serves now; a recorded path outside them is left alone. */
  roots: readonly string[];
}

export interface UndoOptions {
  /**
   * Asked once, with their paths, before undo changes protected paths (.git/, .vscode/,
   * *.code-workspace); without it, or on no, those are left as they are.
   */
  confirmProtected?(paths: string[]): Promise<boolean>;
}

const PROTECTED_SKIP = 'is a protected path (.git/, .vscode/, *.code-workspace): undo changes it only when you confirm';
const OUTSIDE_SKIP = 'is not inside the workspace folders served now: undo does not write there';

/**
 * Puts back what the turn changed; returns what it did and the entries it left alone, in their
 * recorded order (the store keeps those, so their copies outlive the undo for a diff).
 */
export async function undoTurnPaths(
  turn: Pick<StoredTurn, 'turnId' | 'chatId' | 'notes' | 'entries'>,
  storage: RestoreStorage,
  options: UndoOptions = {},
): Promise<{ result: UndoResult; kept: PathEntry[] }> {
  const result: UndoResult = { turnId: turn.turnId, chatId: turn.chatId, restored: [], removed: [], unchanged: [], skipped: [], notes: [...turn.notes] };
  const roots = await placeEntries(turn, storage.roots);
  const unrecoverable = new Set(turn.entries.flatMap((e) => filesOf(e.before).filter((f) => !f.stored).map((f) => f.hash)));
  // Every check against what the turn left happens before anything is restored.
  const live: (Snapshot | Error)[] = [];
  for (const entry of turn.entries) live.push(await scan(entry.path, storage.maxFileBytes).catch((error: Error) => error));
  const guarded = turn.entries.filter((entry, i) => roots[i] !== undefined && isProtectedPath(path.relative(roots[i]!, entry.path)) && needsRestore(entry, live[i]));
  const protectedAllowed = guarded.length === 0 || ((await options.confirmProtected?.(guarded.map((e) => e.display))) ?? false);
  const kept: PathEntry[] = [];
  for (let i = turn.entries.length - 1; i >= 0; i--) {
    const entry = turn.entries[i];
    const root = roots[i];
    const skip = (reason: string) => {
      const before = entry.before.kind === 'file' && entry.before.stored ? path.join(storage.blobDir, entry.before.hash) : undefined;
      result.skipped.unshift({ path: entry.display, reason, absolute: entry.path, before });
      kept.push(entry);
    };
    if (root === undefined) {
      skip(OUTSIDE_SKIP);
      continue;
    }
    if (!protectedAllowed && guarded.includes(entry)) {
      skip(PROTECTED_SKIP);
      continue;
    }
    try {
      const outcome = await restorePath(entry, root, live[i], unrecoverable, result.skipped, storage.blobDir);
      if (outcome === 'restored' || outcome === 'removed' || outcome === 'unchanged') result.restored.unshift(entry.display);
      else skip(outcome);
      if (outcome === 'removed') result.removed!.unshift(entry.display);
      if (outcome === 'unchanged') result.unchanged!.unshift(entry.display);
    } catch (error) {
      skip(`could not be restored: ${(error as Error).message}`);
    }
  }
  return { result, kept: kept.reverse() };
}

/**
 * Checks every entry of the turn before anything is written, and finds the folder (of `roots`, by
 * real path) each path lies in: undefined for one outside them all, or one that is such a folder.
 * A record that this store could not have written stops the whole undo.
 */
async function placeEntries(turn: Pick<StoredTurn, 'turnId' | 'entries'>, roots: readonly string[]): Promise<(string | undefined)[]> {
  const real = (await Promise.all(roots.map((root) => fs.realpath(root).catch(() => undefined)))).filter((root): root is string => root !== undefined);
  if (!Array.isArray(turn.entries)) throw new Error(`The undo record of ${turn.turnId} is damaged (it lists no paths); nothing was changed.`);
  return turn.entries.map((entry, i) => {
    try {
      const where = `path ${i + 1}`;
      if (typeof entry.path !== 'string' || !path.isAbsolute(entry.path) || path.normalize(entry.path) !== entry.path) throw new Error(`${where}: not an absolute, normalized path`);
      if (typeof entry.display !== 'string' || typeof entry.beforeSig !== 'string' || (entry.afterSig !== undefined && typeof entry.afterSig !== 'string')) throw new Error(`${where}: not a recorded path`);
      checkSnapshot(entry.before, where);
    } catch (error) {
      throw new Error(`The undo record of ${turn.turnId} is damaged (${(error as Error).message}); nothing was changed.`);
    }
    return real.find((root) => isInside(root, entry.path) && root !== entry.path);
  });
}

/** Whether undo would change this path: it is neither as it was before the turn, nor unreadable. */
function needsRestore(entry: PathEntry, live: Snapshot | Error): boolean {
  return !(live instanceof Error) && signature(live) !== entry.beforeSig;
}

/** Puts one path back; returns 'restored', 'removed' (the turn created it), 'unchanged' (already as before), or the reason it was left alone. */
async function restorePath(entry: PathEntry, root: string, live: Snapshot | Error, unrecoverable: Set<string>, skipped: UndoSkip[], blobDir: string): Promise<string> {
  if (entry.unsaved) return entry.unsaved;
  if (live instanceof Error) return `its current state could not be read (${live.message})`;
  const liveSig = signature(live);
  if (liveSig !== entry.afterSig && liveSig === entry.beforeSig) return 'unchanged';
  await assertRealFoldersInside(root, entry.path);
  if (liveSig !== entry.afterSig) {
    // A folder the turn created goes only if it is empty once the turn's own files are gone.
    if (entry.before.kind === 'absent' && live.kind === 'dir') {
      const removed = await fs.rmdir(entry.path).then(() => true, () => false);
      return removed ? 'removed' : 'the folder is not empty: it holds files the turn did not put there';
    }
    return live.kind === 'absent' ? 'deleted after the turn' : 'changed after the turn';
  }
  const lost = filesOf(live, entry.display).find((f) => unrecoverable.has(f.hash));
  if (lost) return `holds ${lost.display}, of which no copy was kept; undoing would lose it`;
  if (entry.before.kind === 'file' && !entry.before.stored) return entry.before.missing ?? 'no copy was kept';
  await checkBlobs(entry.before, blobDir);
  await fs.rm(entry.path, { recursive: true, force: true });
  if (entry.before.kind === 'absent') return 'removed';
  await fs.mkdir(path.dirname(entry.path), { recursive: true });
  await materialize(entry.before, blobDir, entry.path, entry.display, skipped);
  return 'restored';
}
