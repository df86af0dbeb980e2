import { promises as fs } from 'node:fs';

/** A path the sandbox must make read-only even though nothing is there yet (`.vscode/`, `.git/hooks`). */
export interface Uncreatable {
  path: string;
  kind: 'dir' | 'file';
  /** What a made file holds (empty by default): `.git/commondir` must say `.` for git to work meanwhile. */
  content?: string;
}

/** Placeholders this process created and still needs: path → how many sandboxes use it, and its inode. */
const held = new Map<string, { count: number; ino: number; kind: 'dir' | 'file'; size: number }>();

/**
 * A mount needs something to mount on: for each path that does not exist, an empty folder (or
 * file) is created on the host for as long as a sandbox uses it, mounted read-only inside (so a
 * command can neither write into it nor remove or replace it), and removed when the last sandbox
 * using it ends, if it is still empty and still the one made here. What existed is left alone.
 */
export class MountPointLease {
  private released = false;

  private constructor(private readonly created: readonly string[]) {}

  /** Makes every path exist; the lease remembers the ones it created. */
  static async acquire(paths: readonly Uncreatable[]): Promise<MountPointLease> {
    const created: string[] = [];
    for (const { path, kind, content = '' } of paths) {
      const mine = held.get(path);
      if (mine && (await sameInode(path, mine.ino))) {
        mine.count++;
        created.push(path);
        continue;
      }
      const ino = await createPlaceholder(path, kind, content);
      if (ino === undefined) continue;
      held.set(path, { count: 1, ino, kind, size: Buffer.byteLength(content) });
      created.push(path);
    }
    return new MountPointLease(created);
  }

  /** The created paths whose last user this was are removed (only while as made). Idempotent. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    // Deepest first, so a created folder inside another created one goes before its parent.
    for (const path of [...this.created].reverse()) {
      const mine = held.get(path);
      if (!mine || --mine.count > 0) continue;
      held.delete(path);
      if (!(await sameInode(path, mine.ino))) continue;
      if (mine.kind === 'dir') await fs.rmdir(path).catch(() => undefined);
      else if ((await fs.lstat(path).catch(() => undefined))?.size === mine.size) await fs.unlink(path).catch(() => undefined);
    }
  }
}

/**
 * Creates an empty folder, or a file holding `content`, where nothing is; its inode, or undefined
 * when something was there already or it cannot be made (a folder this user cannot write: nor can
 * the command).
 */
async function createPlaceholder(path: string, kind: 'dir' | 'file', content: string): Promise<number | undefined> {
  try {
    if (kind === 'dir') await fs.mkdir(path);
    else await fs.writeFile(path, content, { flag: 'wx' });
    return (await fs.lstat(path)).ino;
  } catch {
    return undefined;
  }
}

async function sameInode(path: string, ino: number): Promise<boolean> {
  return (await fs.lstat(path).catch(() => undefined))?.ino === ino;
}
