import { readFileSync } from 'node:fs';
import { parseSettingsText } from '../tools/settingsText';

/** One settings file as read: its text (comments kept), its values, what was wrong with it. */
export interface SettingsFile {
  /** Absolute path. */
  path: string;
  /** How messages name it: `.vscode/settings.json`, the path of the person's file. */
  label: string;
  exists: boolean;
  text: string;
  values: Readonly<Record<string, unknown>>;
  problems: string[];
}

/** Reads a settings.json (JSONC). A missing file is empty; an unreadable or malformed one says why. */
export function readSettingsFile(path: string, label: string): SettingsFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { path, label, exists: false, text: '', values: {}, problems: [] };
    return { path, label, exists: false, text: '', values: {}, problems: [`${label}: cannot be read (${code ?? (error as Error).message}).`] };
  }
  return { path, label, exists: true, text, ...parseSettingsText(text, label) };
}

export { parseSettingsText };

/** A setting's value at the person's own level and at the workspace's (undefined where unset). */
export interface SettingLevels {
  user: unknown;
  workspace: unknown;
}

/**
 * The settings the CLI reads: the workspace's `.vscode/settings.json` and, when the person named
 * one, their own settings file. As in VS Code, a workspace value wins where both set one; the
 * rules that need the person's say (allowed commands, servers to start) read the levels apart.
 */
export class SettingsSnapshot {
  constructor(
    readonly workspace: SettingsFile,
    readonly user: SettingsFile | undefined,
  ) {}

  get(key: string): unknown {
    const { workspace, user } = this.levels(key);
    return workspace !== undefined ? workspace : user;
  }

  levels(key: string): SettingLevels {
    return { user: own(this.user?.values, key), workspace: own(this.workspace.values, key) };
  }

  /** A string setting, trimmed; '' when unset or not a string. */
  text(key: string): string {
    const value = this.get(key);
    return typeof value === 'string' ? value.trim() : '';
  }

  problems(): string[] {
    return [...this.workspace.problems, ...(this.user?.problems ?? [])];
  }
}

function own(values: Readonly<Record<string, unknown>> | undefined, key: string): unknown {
  return values && Object.hasOwn(values, key) ? values[key] : undefined;
}
