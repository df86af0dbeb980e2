import type { TranscriptItem } from '../protocol';
import { revealHiddenCharacters } from '../protocol';

type Undone = NonNullable<Extract<TranscriptItem, { kind: 'turn' }>['undone']>;

/**
 * What Undo did, file by file, in one line: restored, removed (the turn had created it), already
 * as before; or that nothing was put back (each file left alone gets its own line with the reason).
 */
export function undoneLine(undone: Undone): string {
  const names = (paths: string[]) => paths.map(revealHiddenCharacters).join(', ');
  const removed = new Set(undone.removed ?? []);
  const unchanged = new Set(undone.unchanged ?? []);
  const restored = undone.restored.filter((path) => !removed.has(path) && !unchanged.has(path));
  const parts = [
    restored.length ? `restored ${names(restored)}` : '',
    removed.size ? `removed ${names([...removed])} (the turn had created ${removed.size === 1 ? 'it' : 'them'})` : '',
    unchanged.size ? `${names([...unchanged])} ${unchanged.size === 1 ? 'was' : 'were'} already as before the turn` : '',
  ].filter(Boolean);
  if (parts.length) return `Undone: ${parts.join('; ')}.`;
  return undone.skipped.length ? 'Nothing was put back.' : 'Undone: nothing was left to put back.';
}

/** The line for a file Undo left alone. */
export function skippedLine(skip: { path: string; reason: string }): string {
  return `Left ${revealHiddenCharacters(skip.path)} as it is: ${skip.reason}.`;
}
