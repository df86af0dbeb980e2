import * as vscode from 'vscode';
import { realpathSync } from 'node:fs';
import { decide, nativePolicyOf, type NativeTools, type Policy } from '../policy';
import { unasked } from '../tools/consent';
import type { ConsentSource } from '../tools/policyDecision';
import { checkPolicyExamples, readPolicyExamples } from '../tools/policyTests';
import type { ToolRegistry } from '../tools/registry';
import type { SettingsWatcher } from './settings';
import { settingsDiagnostics, workspaceSettingsUri } from './settingsDiagnostics';
import type { WorkspaceTools } from './workspaceTools';

/**
 * `toolbelt.policy.tests` checked as you edit: each example of the workspace's settings.json whose
 * verdict differs from what the policy decides now is an error on that example (and so in the
 * Problems view), the same check `toolbelt policy test` runs in CI. Like `policy explain`, it
 * judges the rules, not the switches: every registered tool counts as switched on; another agent's
 * own tool (Copilot's run_in_terminal, Claude Code's Bash) gets what `toolbelt hook` answers.
 */
export function registerPolicyTestDiagnostics(tools: WorkspaceTools, rules: { policy(): Policy }, watcher: SettingsWatcher, log: vscode.LogOutputChannel): vscode.Disposable {
  // Any of Toolbelt's settings: the examples themselves, the rules, the registry.
  return settingsDiagnostics('toolbelt-policy', () => check(tools, rules), [tools.onDidChange, watcher.onDidChange], log);
}

async function check(tools: WorkspaceTools, rules: { policy(): Policy }): Promise<{ uri: vscode.Uri; diagnostics: vscode.Diagnostic[] } | undefined> {
  const uri = workspaceSettingsUri();
  if (!uri) return undefined;
  const document = await vscode.workspace.openTextDocument(uri).then(undefined, () => undefined);
  if (!document) return undefined;
  const text = document.getText();
  const { examples, problem, line } = readPolicyExamples(text);
  const diagnostics: vscode.Diagnostic[] = [];
  if (problem) diagnostics.push(diagnostic(new vscode.Range((line ?? 1) - 1, 0, (line ?? 1) - 1, 0), problem));
  const source = everyToolOn(tools.manager.registry);
  const modelName = (name: string) => tools.list().find((tool) => tool.name === name)?.modelName ?? name;
  const root = realFolder(vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath);
  const native: NativeTools | undefined = root ? { root, policy: () => nativePolicyOf(root, rules.policy(), new Set()) } : undefined;
  for (const result of await checkPolicyExamples(examples, (tool, args) => decide(source, undefined, { tool: modelName(tool), args }, native))) {
    if (result.pass) continue;
    const { offset, length } = result.example;
    diagnostics.push(diagnostic(new vscode.Range(document.positionAt(offset), document.positionAt(offset + length)), result.message));
  }
  return { uri, diagnostics };
}

/** The registry's consent plans with every registered tool counted as on: the rules decide, not the switches. */
function everyToolOn(registry: ToolRegistry): ConsentSource {
  return {
    hasTool: (name) => registry.hasTool(name),
    consent: (name, args) => registry.get(name)?.consent?.(args) ?? Promise.resolve(unasked(name, undefined)),
  };
}

function realFolder(folder: string | undefined): string | undefined {
  try {
    return folder ? realpathSync(folder) : undefined;
  } catch {
    return undefined;
  }
}

function diagnostic(range: vscode.Range, message: string): vscode.Diagnostic {
  const found = new vscode.Diagnostic(range, message, vscode.DiagnosticSeverity.Error);
  found.source = 'Toolbelt policy test';
  return found;
}
