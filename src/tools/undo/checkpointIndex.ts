import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Snapshot } from './checkpointSnapshots';
import { writeFileAtomic } from '../fileSystem';

/*
 * The checkpoint store's index, `<dir>/index.json`: every turn, its paths and their snapshots.
 * Written atomically; an index this version cannot read is set aside, never overwritten.
 */

/**
 * One path a turn recorded: its state before the turn's first change, and signatures to compare.
 * (Older indexes also name each path's workspace folder, `root`: undo never reads it.)
 */
export interface PathEntry {
  path: string;
  display: string;
  before: Snapshot;
  beforeSig: string;
  afterSig?: string;
  /** Set when the state before could not be saved: undo leaves the path alone. */
  unsaved?: string;
}

/** One turn as the index keeps it. */
export interface StoredTurn {
  turnId: string;
  chatId: string;
  startedAt: number;
  endedAt?: number;
  undoneAt?: number;
  /** The process that began the turn, while it runs: another process closes it only once that one is gone. */
  pid?: number;
  storedBytes: number;
  notes: string[];
  entries: PathEntry[];
}

const INDEX_VERSION = 1;

export async function readIndex(dir: string): Promise<StoredTurn[]> {
  const file = indexFile(dir);
  const text = await fs.readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (text === undefined) return [];
  try {
    const index = JSON.parse(text) as { version?: number; turns?: StoredTurn[] };
    if (index.version === INDEX_VERSION && Array.isArray(index.turns)) return index.turns;
  } catch {
    // An unreadable index is set aside below; its blobs are then collected.
  }
  await fs.rename(file, `${file}.unreadable`);
  return [];
}

export function writeIndex(dir: string, turns: StoredTurn[]): Promise<void> {
  return writeFileAtomic(indexFile(dir), JSON.stringify({ version: INDEX_VERSION, turns }));
}

function indexFile(dir: string): string {
  return path.join(dir, 'index.json');
}
