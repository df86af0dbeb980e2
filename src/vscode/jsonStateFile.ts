import { readFileSync } from 'node:fs';
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
    if (!this.data) {
      try {
        const parsed: unknown = JSON.parse(readFileSync(this.file, 'utf8'));
        this.data = parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
      } catch {
        this.data = {};
      }
    }
    return this.data;
  }
}
