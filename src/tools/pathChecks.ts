import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** `child` is `parent` or somewhere below it (by name: links are not followed). */
export function isInside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}

/** Something is there, a dangling link included. */
export function exists(file: string): Promise<boolean> {
  return fs.lstat(file).then(() => true, () => false);
}
