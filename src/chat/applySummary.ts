// What an Apply to File proposal says in the panel: what it does to the file, and how many lines
// it adds and removes. Pure.
import type { SnippetMerge } from './snippetMerge';

/** One sentence on what the change does, e.g. "Replaces total; adds average. The rest of the file stays." */
export function describeMerge(merge: SnippetMerge, selectedLines?: { start: number; end: number }): string {
  const list = (names: string[]) => unique(names).join(', ');
  const left = merge.unresolved.length ? ` Left as it is: ${list(merge.unresolved)} (its "..." lines match nothing in the file).` : '';
  switch (merge.kind) {
    case 'new':
      return 'Creates the file with this code.';
    case 'whole':
      return 'Replaces the whole file: the block is the whole file.';
    case 'unchanged':
      return `The file already has this code.${left}`;
    case 'selection':
      return selectedLines ? `Replaces the selected ${selectedLines.start === selectedLines.end ? `line ${selectedLines.start}` : `lines ${selectedLines.start}–${selectedLines.end}`}.` : 'Replaces the selection.';
    case 'added': {
      const named = merge.added.filter((name) => name !== 'the code');
      return named.length ? `Adds ${list(named)}; nothing in the file is replaced.${left}` : `Adds the code at the end: no part of the file matches it (select where it goes and Apply again to replace that instead).${left}`;
    }
    case 'merged': {
      const replaced = merge.replaced.filter((name) => name !== 'imports');
      const parts = [replaced.length ? `Replaces ${list(replaced)}` : 'Updates the imports', merge.added.length ? `adds ${list(merge.added)}` : ''].filter(Boolean);
      return `${parts.join('; ')}. The rest of the file stays.${left}`;
    }
  }
}

/** Lines added and removed between two texts (a line diff's counts; large files are counted roughly). */
export function countChanges(before: string, after: string): { added: number; removed: number } {
  const a = before === '' ? [] : before.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  const b = after === '' ? [] : after.replace(/\r\n/g, '\n').replace(/\n$/, '').split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const left = a.slice(start, endA);
  const right = b.slice(start, endB);
  const common = left.length * right.length <= 4_000_000 ? lcsLength(left, right) : sharedLines(left, right);
  return { added: right.length - common, removed: left.length - common };
}

function lcsLength(a: readonly string[], b: readonly string[]): number {
  let previous = new Array<number>(b.length + 1).fill(0);
  for (const line of a) {
    const row = new Array<number>(b.length + 1).fill(0);
    for (let j = 0; j < b.length; j++) row[j + 1] = line === b[j] ? previous[j] + 1 : Math.max(previous[j + 1], row[j]);
    previous = row;
  }
  return previous[b.length];
}

function sharedLines(a: readonly string[], b: readonly string[]): number {
  const counts = new Map<string, number>();
  for (const line of a) counts.set(line, (counts.get(line) ?? 0) + 1);
  let shared = 0;
  for (const line of b) {
    const left = counts.get(line) ?? 0;
    if (left > 0) {
      shared++;
      counts.set(line, left - 1);
    }
  }
  return shared;
}

function unique(names: string[]): string[] {
  return [...new Set(names)];
}
