import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { exists, isInside } from '../pathChecks';

/** A folder holding one of these is the top of a program's own files: a package, a virtual environment, a checkout. */
const PACKAGE_MARKERS = ['package.json', 'node_modules', 'pyvenv.cfg', 'pyproject.toml', '.git'];

/**
 * What of a program's own files the sandbox's private folders (/tmp, the home folder) would hide,
 * to be shown read-only: for each word of its command line that is an absolute path in one of
 * `privateFolders`, the package it belongs to (the nearest folder above it, below the private
 * folder, that holds a package.json, node_modules, pyvenv.cfg, pyproject.toml or .git). A loose
 * file (a Kerberos ticket cache in /tmp is one), a socket, a folder without such a mark, and what
 * a writable folder already shows stay as they are; credentials inside a package stay hidden.
 */
export async function programFilesUnder(privateFolders: readonly string[], words: readonly string[], writable: readonly string[]): Promise<string[]> {
  const found = await Promise.all(words.filter((word) => path.isAbsolute(word)).map((word) => programFiles(word, privateFolders)));
  const shown = new Set(found.filter((entry): entry is string => entry !== undefined));
  return [...shown].filter((entry) => !writable.some((folder) => isInside(folder, entry)));
}

async function programFiles(word: string, privateFolders: readonly string[]): Promise<string | undefined> {
  const real = await fs.realpath(word).catch(() => undefined);
  const top = real && privateFolders.find((folder) => real !== folder && isInside(folder, real));
  if (!real || !top) return undefined;
  const stat = await fs.stat(real).catch(() => undefined);
  if (!stat || !(stat.isFile() || stat.isDirectory())) return undefined;
  for (let folder = stat.isDirectory() ? real : path.dirname(real); folder !== top; folder = path.dirname(folder)) {
    if (await hasMarker(folder)) return folder;
  }
  return undefined;
}

async function hasMarker(folder: string): Promise<boolean> {
  return (await Promise.all(PACKAGE_MARKERS.map((name) => exists(path.join(folder, name))))).includes(true);
}
