import { readFileSync } from 'node:fs';
import type * as vscode from 'vscode';
import { writeFileAtomic } from '../tools/fileSystem';

/** The part of vscode.Memento Toolbelt uses, so either can back its state. */
export interface StateStore {
  get<T>(key: string, defaultValue: T): T;
  update(key: string, value: unknown): Thenable<void>;
}

/**
 * Workspace state in a JSON file of the extension's workspace storage folder. Unlike a
 * Memento in the web workbench, whose writes travel to the browser and can be lost when the
 * window reloads right away, a file write is done on the extension host's own disk.
 * Read on first use; writes are atomic and queued so the last one wins.
 */
export class JsonStateFile implements StateStore {
  private data: Record<string, unknown> | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly file: string) {}

  get<T>(key: string, defaultValue: T): T {
    const value = this.load()[key];
    return value === undefined ? defaultValue : (value as T);
  }

  update(key: string, value: unknown): Promise<void> {
    const data = this.load();
    if (value === undefined) delete data[key];
    else data[key] = value;
    const text = JSON.stringify(data);
    this.writing = this.writing.catch(() => undefined).then(() => writeFileAtomic(this.file, text));
    return this.writing;
  }

  /** Resolves when every write queued so far is on disk (or failed). */
  async flush(): Promise<void> {
    let last: Promise<void> | undefined;
    while (last !== this.writing) {
      last = this.writing;
      await last.catch(() => undefined);
    }
  }

  private load(): Record<string, unknown> {
    this.data ??= readStateFile(this.file);
    return this.data;
  }
}

/** A state file's contents; empty when it is missing or not a JSON object. */
export function readStateFile(file: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The folder state files live in: the workspace storage folder when it is on this disk (else the workspace Memento holds the state). */
export function stateFolder(context: Pick<vscode.ExtensionContext, 'storageUri'>): string | undefined {
  return context.storageUri?.scheme === 'file' ? context.storageUri.fsPath : undefined;
}
