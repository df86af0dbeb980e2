import type { PolicyRule } from '../tools/consent';
import { describeRule } from '../tools/policyDecision';
import { locateSetting } from '../tools/settingsLocations';
import type { SettingsSnapshot } from './settingsFiles';

/** A rule with where it is written: `.vscode/settings.json:12`, the person's file, or built in. */
export interface LocatedRule {
  kind: 'setting' | 'builtin' | 'choice';
  /** `setting`: the setting's name, and the entry of it that matched. */
  setting?: string;
  entry?: string;
  /** `setting`: the file (as messages name it) and line that hold it, when a file does. */
  file?: string;
  line?: number;
  /** In words, with where it is. */
  text: string;
}

/** locateRule over the settings files as read (`toolbelt hook` reads them without a CliWorkspace). */
export function locateRuleIn(files: Pick<SettingsSnapshot, 'workspace' | 'user'>, rule: PolicyRule | undefined): LocatedRule {
  const named = describeRule(rule);
  if (!rule || 'builtin' in rule) return { kind: 'builtin', text: named };
  if ('choice' in rule) return { kind: 'choice', text: named };
  const { workspace: settings, user } = files;
  for (const file of [settings, ...(user ? [user] : [])]) {
    const found = file.exists ? locateSetting(file.text, rule.setting, rule.entry) : undefined;
    if (found) return { kind: 'setting', setting: rule.setting, ...(rule.entry !== undefined ? { entry: rule.entry } : {}), file: file.label, line: found.line, text: `${file.label}:${found.line} (${named})` };
  }
  return { kind: 'setting', setting: rule.setting, ...(rule.entry !== undefined ? { entry: rule.entry } : {}), text: `${named} (the built-in default; no settings file sets it)` };
}
