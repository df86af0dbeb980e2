import * as vscode from 'vscode';
import { locateSetting } from '../tools/settingsLocations';
import type { SettingsWatcher } from './settings';
import { settingsDiagnostics, workspaceSettingsUri } from './settingsDiagnostics';

const WORKSPACE_LEVEL = 'Workspace settings: ';

/** What the policy's reader found wrong with the settings (the Policy's problems), level by level. */
export interface RuleProblemSource {
  ruleProblems(): readonly string[];
}

/**
 * The workspace level's problems with the rules — a `toolbelt.tools.sensitiveFiles` that leaves a
 * built-in entry out (it cannot remove one), an entry that is not a glob, a command rule that is
 * not a regular expression, a `toolbelt.sandbox.*` value it cannot use — as warnings on the
 * setting in `.vscode/settings.json`, so the Problems view says why a line changes nothing. The person's own level goes to the log as before.
 */
export function registerRuleDiagnostics(rules: RuleProblemSource, watcher: SettingsWatcher, log: vscode.LogOutputChannel): vscode.Disposable {
  const ruleChanges = (listener: () => void) => watcher.onDidChange((change) => (change.trustRules || change.sandbox) && listener());
  return settingsDiagnostics('toolbelt-rules', () => place(rules), [ruleChanges], log);
}

async function place(rules: RuleProblemSource): Promise<{ uri: vscode.Uri; diagnostics: vscode.Diagnostic[] } | undefined> {
  const uri = workspaceSettingsUri();
  const problems = rules.ruleProblems().filter((problem) => problem.startsWith(WORKSPACE_LEVEL));
  if (!uri || problems.length === 0) return undefined;
  const document = await vscode.workspace.openTextDocument(uri).then(undefined, () => undefined);
  if (!document) return undefined;
  const text = document.getText();
  const diagnostics = problems.map((problem) => {
    const message = problem.slice(WORKSPACE_LEVEL.length);
    const setting = /^toolbelt\.[\w.]+/.exec(message)?.[0];
    const where = setting ? locateSetting(text, setting) : undefined;
    const range = where ? new vscode.Range(document.positionAt(where.offset), document.positionAt(where.offset + where.length)) : new vscode.Range(0, 0, 0, 0);
    const found = new vscode.Diagnostic(range, message, vscode.DiagnosticSeverity.Warning);
    found.source = 'Toolbelt';
    return found;
  });
  return { uri, diagnostics };
}
