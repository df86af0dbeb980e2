import * as vscode from 'vscode';
import { nameSuggestions, nameValueAt, nearNameFix, registeredNames } from './sources/registryCompletion';
import { registryPath } from './sources/settingsText';
import type { WorkspaceTools } from './workspaceTools';

/** Where `toolbelt.tools.registry` is written: a folder's settings, a workspace file, the user's settings. */
const SETTINGS_FILES: vscode.DocumentSelector = [
  { pattern: '**/.vscode/settings.json' },
  { pattern: '**/*.code-workspace' },
  { scheme: 'vscode-userdata', pattern: '**/settings.json' },
];

/**
 * Help while writing `toolbelt.tools.registry` by hand: completion of the MCP and extension tools
 * the catalog knows (the builtins come from the settings schema), leaving out names already
 * there, and a quick fix for each "did you mean …?" problem.
 */
export function registerRegistryEditing(context: vscode.ExtensionContext, tools: WorkspaceTools): void {
  context.subscriptions.push(
    vscode.languages.registerCompletionItemProvider(SETTINGS_FILES, { provideCompletionItems: (document, position) => completions(document, position, tools) }, '"', '/'),
    vscode.languages.registerCodeActionsProvider(SETTINGS_FILES, { provideCodeActions: (document, _range, context) => quickFixes(document, context) }, { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] }),
  );
}

function completions(document: vscode.TextDocument, position: vscode.Position, tools: WorkspaceTools): vscode.CompletionItem[] {
  const text = document.getText();
  const inWorkspaceFile = document.uri.path.endsWith('.code-workspace');
  const at = nameValueAt(text, document.offsetAt(position), inWorkspaceFile);
  if (!at) return [];
  const servers = tools.manager.sources().filter((source) => source.kind === 'mcp').map((source) => source.id);
  const catalog = tools.available().tools;
  const names = nameSuggestions(catalog, servers, registeredNames(text, registryPath(inWorkspaceFile)));
  const range = new vscode.Range(document.positionAt(at.range.offset), document.positionAt(at.range.offset + at.range.length));
  return names.map((name) => {
    const tool = catalog.find((entry) => entry.name === name);
    const item = new vscode.CompletionItem(name, name.endsWith('/*') ? vscode.CompletionItemKind.Module : vscode.CompletionItemKind.Function);
    item.range = range;
    item.detail = name.endsWith('/*') ? `every tool of the MCP server ${name.slice(0, -2)}` : tool ? `${tool.source.kind === 'mcp' ? 'MCP server' : 'extension'} ${tool.source.label}` : undefined;
    item.documentation = tool?.description;
    return item;
  });
}

function quickFixes(document: vscode.TextDocument, context: vscode.CodeActionContext): vscode.CodeAction[] {
  const text = document.getText();
  return context.diagnostics.flatMap((diagnostic) => {
    if (diagnostic.source !== 'Toolbelt') return [];
    const start = document.offsetAt(diagnostic.range.start);
    const fix = nearNameFix(text, { offset: start, length: document.offsetAt(diagnostic.range.end) - start }, diagnostic.message);
    if (!fix) return [];
    const action = new vscode.CodeAction(`Change to "${fix.hint}"`, vscode.CodeActionKind.QuickFix);
    action.diagnostics = [diagnostic];
    action.isPreferred = true;
    action.edit = new vscode.WorkspaceEdit();
    action.edit.replace(document.uri, new vscode.Range(document.positionAt(fix.offset), document.positionAt(fix.offset + fix.length)), fix.content);
    return [action];
  });
}
