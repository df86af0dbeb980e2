import * as vscode from 'vscode';
import { unasked } from '../tools/consent';
import { decideCall, type ConsentSource } from '../tools/policyDecision';
import { checkPolicyExamples, readPolicyExamples } from '../tools/policyTests';
import type { ToolRegistry } from '../tools/registry';
import type { SettingsWatcher } from './settings';
import type { WorkspaceTools } from './workspaceTools';

/**
 * `toolbelt.policy.tests` checked as you edit: each example of the workspace's settings.json whose
 * verdict differs from what the policy decides now is an error on that example (and so in the
 * Problems view), the same check `toolbelt policy test` runs in CI. Like `policy explain`, it
 * judges the rules, not the switches: every registered tool counts as switched on.
 */
export function registerPolicyTestDiagnostics(tools: WorkspaceTools, watcher: SettingsWatcher, log: vscode.LogOutputChannel): vscode.Disposable {
  const collection = vscode.languages.createDiagnosticCollection('toolbelt-policy');
  let generation = 0;
  const refresh = () => {
    const mine = ++generation;
    void check(tools).then(
      (found) => {
        if (mine !== generation) return;
        collection.clear();
        if (found) collection.set(found.uri, found.diagnostics);
      },
      (error: unknown) => log.warn(`Could not check toolbelt.policy.tests: ${String(error)}`),
    );
  };
  const disposables = [
    collection,
    tools.onDidChange(refresh),
    // Any of Toolbelt's settings: the examples themselves, the rules, the registry.
    watcher.onDidChange(refresh),
    vscode.workspace.onDidSaveTextDocument((document) => isSettings(document.uri) && refresh()),
    vscode.workspace.onDidOpenTextDocument((document) => isSettings(document.uri) && refresh()),
  ];
  refresh();
  return vscode.Disposable.from(...disposables);
}

function settingsUri(): vscode.Uri | undefined {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  return folder && vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json');
}

function isSettings(uri: vscode.Uri): boolean {
  return uri.toString() === settingsUri()?.toString();
}

async function check(tools: WorkspaceTools): Promise<{ uri: vscode.Uri; diagnostics: vscode.Diagnostic[] } | undefined> {
  const uri = settingsUri();
  if (!uri) return undefined;
  const document = await vscode.workspace.openTextDocument(uri).then(undefined, () => undefined);
  if (!document) return undefined;
  const text = document.getText();
  const { examples, problem, line } = readPolicyExamples(text);
  const diagnostics: vscode.Diagnostic[] = [];
  if (problem) diagnostics.push(diagnostic(new vscode.Range((line ?? 1) - 1, 0, (line ?? 1) - 1, 0), problem));
  const source = everyToolOn(tools.manager.registry);
  const modelName = (name: string) => tools.list().find((tool) => tool.name === name)?.modelName ?? name;
  for (const result of await checkPolicyExamples(examples, (tool, args) => decideCall(source, modelName(tool), args))) {
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

function diagnostic(range: vscode.Range, message: string): vscode.Diagnostic {
  const found = new vscode.Diagnostic(range, message, vscode.DiagnosticSeverity.Error);
  found.source = 'Toolbelt policy test';
  return found;
}
