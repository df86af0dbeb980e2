import { accessSync, constants, statSync } from 'node:fs';
import * as path from 'node:path';

/** The folders of `env`'s PATH, in order (Windows: `Path`, `;`-separated). */
export function pathEntries(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string[] {
  const value = (platform === 'win32' ? (env.Path ?? env.PATH) : env.PATH) ?? '';
  return value.split(platform === 'win32' ? ';' : ':').filter(Boolean);
}

/** The first executable file `name` in the PATH of `env`, as a shell would find it. */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | undefined {
  for (const dir of pathEntries(env, platform)) {
    const candidate = path.join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}
