import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { PathEntry, StoredTurn } from './checkpointIndex';
import { assertRealFoldersInside, filesOf, materialize, scan, signature, type MissingFile, type Snapshot } from './checkpointSnapshots';
import { isProtectedPath } from './protectedPaths';

/*
 * Undo of one checkpointed turn. It walks the turn's paths in reverse order of their first change,
 * so a path changed several times goes back to its state before the first change, and leaves alone
 * any path whose state is no longer what the turn left there.
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
  restored: string[];
  skipped: UndoSkip[];
  /** What the turn did that no undo reaches, e.g. `run_bash` side effects. */
  notes: string[];
}

/** Where the stored copies are, and the size above which a file was never copied. */
export interface RestoreStorage {
  blobDir: string;
  maxFileBytes: number;
}

export interface UndoOptions {
  /**
   * Asked once, with their paths, before undo changes protected paths (.git/, .vscode/,
   * *.code-workspace); without it, or on no, those are left as they are.
   */
  confirmProtected?(paths: string[]): Promise<boolean>;
}

const PROTECTED_SKIP = 'is a protected path (.git/, .vscode/, *.code-workspace): undo changes it only when you confirm';

/**
 * Puts back what the turn changed; returns what it did and the entries it left alone, in their
 * recorded order (the store keeps those, so their copies outlive the undo for a diff).
 */
export async function undoTurnPaths(
  turn: Pick<StoredTurn, 'turnId' | 'chatId' | 'notes' | 'entries'>,
  storage: RestoreStorage,
  options: UndoOptions = {},
): Promise<{ result: UndoResult; kept: PathEntry[] }> {
  const result: UndoResult = { turnId: turn.turnId, chatId: turn.chatId, restored: [], skipped: [], notes: [...turn.notes] };
  const unrecoverable = new Set(turn.entries.flatMap((e) => filesOf(e.before).filter((f) => !f.stored).map((f) => f.hash)));
  // Every check against what the turn left happens before anything is restored.
  const live: (Snapshot | Error)[] = [];
  for (const entry of turn.entries) live.push(await scan(entry.path, storage.maxFileBytes).catch((error: Error) => error));
  const guarded = turn.entries.filter((entry, i) => isProtectedPath(path.relative(entry.root, entry.path)) && needsRestore(entry, live[i]));
  const protectedAllowed = guarded.length === 0 || ((await options.confirmProtected?.(guarded.map((e) => e.display))) ?? false);
  const kept: PathEntry[] = [];
  for (let i = turn.entries.length - 1; i >= 0; i--) {
    const entry = turn.entries[i];
    const skip = (reason: string) => {
      const before = entry.before.kind === 'file' && entry.before.stored ? path.join(storage.blobDir, entry.before.hash) : undefined;
      result.skipped.unshift({ path: entry.display, reason, absolute: entry.path, before });
      kept.push(entry);
    };
    if (!protectedAllowed && guarded.includes(entry)) {
      skip(PROTECTED_SKIP);
      continue;
    }
    try {
      const outcome = await restorePath(entry, live[i], unrecoverable, result.skipped, storage.blobDir);
      if (outcome === 'restored') result.restored.unshift(entry.display);
      else skip(outcome);
    } catch (error) {
      skip(`could not be restored: ${(error as Error).message}`);
    }
  }
  return { result, kept: kept.reverse() };
}

/** Whether undo would change this path: it is neither as it was before the turn, nor unreadable. */
function needsRestore(entry: PathEntry, live: Snapshot | Error): boolean {
  return !(live instanceof Error) && signature(live) !== entry.beforeSig;
}

/** Puts one path back; returns 'restored' or the reason it was left alone. */
async function restorePath(entry: PathEntry, live: Snapshot | Error, unrecoverable: Set<string>, skipped: UndoSkip[], blobDir: string): Promise<string> {
  if (entry.unsaved) return entry.unsaved;
  if (live instanceof Error) return `its current state could not be read (${live.message})`;
  const liveSig = signature(live);
  if (liveSig !== entry.afterSig && liveSig === entry.beforeSig) return 'restored';
  await assertRealFoldersInside(entry.root, entry.path);
  if (liveSig !== entry.afterSig) {
    // A folder the turn created goes only if it is empty once the turn's own files are gone.
    if (entry.before.kind === 'absent' && live.kind === 'dir') {
      const removed = await fs.rmdir(entry.path).then(() => true, () => false);
      return removed ? 'restored' : 'the folder is not empty: it holds files the turn did not put there';
    }
    return live.kind === 'absent' ? 'deleted after the turn' : 'changed after the turn';
  }
  const lost = filesOf(live, entry.display).find((f) => unrecoverable.has(f.hash));
  if (lost) return `holds ${lost.display}, of which no copy was kept; undoing would lose it`;
  if (entry.before.kind === 'file' && !entry.before.stored) return entry.before.missing ?? 'no copy was kept';
  await fs.rm(entry.path, { recursive: true, force: true });
  if (entry.before.kind === 'absent') return 'restored';
  await fs.mkdir(path.dirname(entry.path), { recursive: true });
  await materialize(entry.before, blobDir, entry.path, entry.display, skipped);
  return 'restored';
}
