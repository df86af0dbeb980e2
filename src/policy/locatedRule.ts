import type { PolicyRule } from '../tools/consent';
import { describeRule } from '../tools/policyDecision';
import { locateSetting } from '../tools/settingsLocations';

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

/** A settings file's text as read, named as messages name it. */
export interface SettingsText {
  label: string;
  exists: boolean;
  text: string;
}

/** The files a rule may be written in: the workspace's first, then the person's. */
export interface SettingsTexts {
  workspace: SettingsText;
  user?: SettingsText;
}

/** Where a rule is written, found in the settings files' text (without them, only its name). */
export function locateRuleIn(files: SettingsTexts | undefined, rule: PolicyRule | undefined): LocatedRule {
  const named = describeRule(rule);
  if (!rule || 'builtin' in rule) return { kind: 'builtin', text: named };
  if ('choice' in rule) return { kind: 'choice', text: named };
  if (!files) return { kind: 'setting', setting: rule.setting, ...(rule.entry !== undefined ? { entry: rule.entry } : {}), text: named };
  const { workspace: settings, user } = files;
  for (const file of [settings, ...(user ? [user] : [])]) {
    const found = file.exists ? locateSetting(file.text, rule.setting, rule.entry) : undefined;
    if (found) return { kind: 'setting', setting: rule.setting, ...(rule.entry !== undefined ? { entry: rule.entry } : {}), file: file.label, line: found.line, text: `${file.label}:${found.line} (${named})` };
  }
  return { kind: 'setting', setting: rule.setting, ...(rule.entry !== undefined ? { entry: rule.entry } : {}), text: `${named} (the built-in default; no settings file sets it)` };
}
