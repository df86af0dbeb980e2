/** `vscode.ConfigurationTarget`'s values. */
export const ConfigurationTarget = { Global: 1, Workspace: 2, WorkspaceFolder: 3 } as const;

export type Level = 'default' | 'global' | 'workspace';
/** Settings by their full name (`toolbelt.baseUrl`) at one level. */
export type LevelValues = Record<string, unknown>;

/**
 * VS Code's settings at three levels (defaults, the person's user settings, the workspace's
 * .vscode/settings.json) behind `workspace.getConfiguration(section)`: `get` gives the value that
 * applies, `inspect` each level, `update` writes one level and is recorded. As in VS Code, an
 * update without a target writes the workspace. Not modelled: restricted settings in an untrusted
 * workspace (`get` applies the workspace's values whatever the trust).
 */
export class FakeConfiguration {
  readonly levels: Record<Level, Map<string, unknown>>;
  /** Every update, in order: the setting's full name, the level written and the value (undefined removes it). */
  readonly updates: { name: string; level: Exclude<Level, 'default'>; value: unknown }[] = [];

  constructor(values: Partial<Record<Level, LevelValues>> = {}) {
    const map = (level: Level) => new Map(Object.entries(values[level] ?? {}));
    this.levels = { default: map('default'), global: map('global'), workspace: map('workspace') };
  }

  /** One level's values, by full name. */
  at(level: Level): LevelValues {
    return Object.fromEntries(this.levels[level]);
  }

  getConfiguration(section?: string) {
    const full = (key: string) => (section ? `${section}.${key}` : key);
    const { default: defaults, global, workspace } = this.levels;
    return {
      get: <T>(key: string, fallback?: T): T | undefined => {
        const name = full(key);
        for (const level of [workspace, global, defaults]) if (level.has(name)) return level.get(name) as T;
        return fallback;
      },
      inspect: <T>(key: string) => ({
        key: full(key),
        defaultValue: defaults.get(full(key)) as T | undefined,
        globalValue: global.get(full(key)) as T | undefined,
        workspaceValue: workspace.get(full(key)) as T | undefined,
        workspaceFolderValue: undefined as T | undefined,
      }),
      update: (key: string, value: unknown, target?: number | boolean | null): Promise<void> => {
        const level = target === true || target === ConfigurationTarget.Global ? 'global' : target === ConfigurationTarget.WorkspaceFolder ? undefined : 'workspace';
        if (!level) return Promise.reject(new Error('The fake has no workspace folder level.'));
        const name = full(key);
        this.updates.push({ name, level, value });
        if (value === undefined) this.levels[level].delete(name);
        else this.levels[level].set(name, value);
        return Promise.resolve();
      },
    };
  }
}
