import * as vscode from 'vscode';
import { realScheduler, type Scheduler } from '../tools/callBudget';
import { locateProblems, plainProblem, ProblemToastGate, problemToast, type LocatedProblem, type RegistryProblems } from './sources/registryProblems';
import { registerRegistryEditing } from './registryEditing';
import { registryPath } from './sources/settingsText';
import { REGISTRY_KEY, SECTION } from './settings';
import type { WorkspaceTools } from './workspaceTools';

/** How long the problems must stay the same before a toast: auto-save while typing settles first. */
export const TOAST_QUIET_MS = 1500;
/** Within this long after a keystroke in a settings file's editor, the person is editing it: squiggles, no toast. */
export const EDITING_MS = 10_000;

/**
 * Problems of `toolbelt.tools.registry` where they are: squiggles on the settings file that holds
 * them (and so in the Problems view), a status bar entry that goes away the moment they are fixed,
 * and one toast per real change (after a quiet period, in plain words, with a way to the entry) —
 * but no toast while the person is editing the settings file: the squiggles are there already.
 */
export function registerRegistryDiagnostics(context: vscode.ExtensionContext, tools: WorkspaceTools, log: vscode.LogOutputChannel, scheduler: Scheduler = realScheduler): void {
  const collection = vscode.languages.createDiagnosticCollection('toolbelt');
  const status = vscode.window.createStatusBarItem('toolbelt.settingsProblems', vscode.StatusBarAlignment.Left, 0);
  status.name = 'Toolbelt tool settings problems';
  status.command = { command: 'workbench.actions.view.problems', title: 'Show the problems' };
  let latest: RegistryProblems = { warnings: [], errors: [] };
  let lastEdit = -Infinity;
  const editing = () => scheduler.now() - lastEdit < EDITING_MS;
  const gate = new ProblemToastGate(scheduler, TOAST_QUIET_MS, (problems) => {
    if (editing()) log.info('Tool settings problems shown as squiggles only: the settings file is being edited.');
    else void toast(problems, log);
  });
  const refresh = () => void placeDiagnostics(collection, latest).catch((error: unknown) => log.warn(`Could not place the settings problems: ${String(error)}`));
  const show = (problems: RegistryProblems) => {
    latest = problems;
    refresh();
    showStatus(status, problems);
  };
  context.subscriptions.push(
    collection,
    status,
    { dispose: () => gate.dispose() },
    tools.onDidReportProblems((problems) => {
      show(problems);
      gate.update(problems);
    }),
    // Typing in the settings editor, not Toolbelt's own edits (to a document nobody has in front of them) nor a reload from disk (which leaves it clean).
    vscode.workspace.onDidChangeTextDocument((event) => {
      const typing = event.contentChanges.length > 0 && event.document.isDirty && vscode.window.activeTextEditor?.document === event.document;
      if (typing && isSettingsFile(event.document.uri)) lastEdit = scheduler.now();
    }),
    // The ranges follow the text: after a save (the settings are read again) and on opening the file.
    vscode.workspace.onDidSaveTextDocument((document) => isSettingsFile(document.uri) && refresh()),
    vscode.workspace.onDidOpenTextDocument((document) => isSettingsFile(document.uri) && refresh()),
  );
  registerRegistryEditing(context, tools);
  show(tools.problems());
}

/** "⚠ 2 tool settings problems" while there are any; gone as soon as they are fixed. */
function showStatus(status: vscode.StatusBarItem, problems: RegistryProblems): void {
  const count = problems.errors.length + problems.warnings.length;
  if (count === 0) {
    status.hide();
    return;
  }
  status.text = `$(warning) ${count} tool settings problem${count === 1 ? '' : 's'}`;
  status.tooltip = `Toolbelt: ${plainProblem([...problems.errors, ...problems.warnings][0])}${count > 1 ? ` (and ${count - 1} more)` : ''}. Click for the Problems view.`;
  status.show();
}

/** The files workspace settings are written to: the .code-workspace file, then the first folder's .vscode/settings.json. */
function settingsFiles(): { uri: vscode.Uri; inWorkspaceFile: boolean }[] {
  const files: { uri: vscode.Uri; inWorkspaceFile: boolean }[] = [];
  if (vscode.workspace.workspaceFile?.scheme === 'file') files.push({ uri: vscode.workspace.workspaceFile, inWorkspaceFile: true });
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (folder) files.push({ uri: vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json'), inWorkspaceFile: false });
  return files;
}

function isSettingsFile(uri: vscode.Uri): boolean {
  return settingsFiles().some((file) => file.uri.toString() === uri.toString());
}

/** The workspace file whose registry VS Code uses, with the problems located in its text. */
async function locatedInWorkspace(problems: RegistryProblems): Promise<{ document: vscode.TextDocument; located: LocatedProblem[] } | undefined> {
  for (const file of settingsFiles()) {
    const document = await vscode.workspace.openTextDocument(file.uri).then(undefined, () => undefined);
    if (!document) continue;
    const located = locateProblems(document.getText(), problems, registryPath(file.inWorkspaceFile));
    if (located.length > 0 || problems.errors.length + problems.warnings.length === 0) return { document, located };
  }
  return undefined;
}

async function placeDiagnostics(collection: vscode.DiagnosticCollection, problems: RegistryProblems): Promise<void> {
  collection.clear();
  if (problems.errors.length + problems.warnings.length === 0) return;
  const found = await locatedInWorkspace(problems);
  if (!found) return;
  collection.set(
    found.document.uri,
    found.located.map((problem) => {
      const range = new vscode.Range(found.document.positionAt(problem.offset), found.document.positionAt(problem.offset + problem.length));
      const diagnostic = new vscode.Diagnostic(range, problem.message, problem.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
      diagnostic.source = 'Toolbelt';
      return diagnostic;
    }),
  );
}

async function toast(problems: RegistryProblems, log: vscode.LogOutputChannel): Promise<void> {
  const inspected = vscode.workspace.getConfiguration(SECTION).inspect<unknown>(REGISTRY_KEY);
  const where = inspected?.workspaceValue !== undefined ? "this workspace's" : 'your';
  // A warning, never an error: warnings leave the screen by themselves; the status bar entry stays until the problems are fixed.
  const choice = await vscode.window.showWarningMessage(problemToast(problems, where), 'Reveal in settings.json', 'Open Log');
  if (choice === 'Open Log') log.show(true);
  if (choice !== 'Reveal in settings.json') return;
  const found = await locatedInWorkspace(problems);
  const first = found?.located[0];
  if (!found || !first) {
    await vscode.commands.executeCommand('toolbelt.tools.openSettings');
    return;
  }
  const range = new vscode.Range(found.document.positionAt(first.offset), found.document.positionAt(first.offset + first.length));
  await vscode.window.showTextDocument(found.document, { selection: range });
}
