import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ContextSuggestion } from '../../protocol';
import type { AttachmentTarget } from './attachmentReader';
import { editorTargets, workspaceFiles, type TargetItem } from './attachmentPicker';

/** Suggestions shown at most under the `#` the person typed. */
const MAX_SUGGESTIONS = 12;
/** Workspace symbols are asked for only from this many characters on, and waited for at most this long. */
const SYMBOL_QUERY_CHARS = 2;
const SYMBOL_WAIT_MS = 1500;
/** The file list is read once per burst of typing. */
const FILES_FRESH_MS = 10_000;

/**
 * What `#` offers at the chat's input, filtered by what follows it: the selection, the open
 * editors, workspace files and (from two characters on) workspace symbols. The host keeps what each
 * suggestion stands for; the panel gets labels and answers with the index of the one chosen.
 */
export class ContextSuggestions {
  private files: { at: number; items: Promise<TargetItem[]> } | undefined;
  private offered: { seq: number; targets: AttachmentTarget[] } = { seq: -1, targets: [] };

  async suggest(seq: number, query: string): Promise<ContextSuggestion[]> {
    const wanted = query.trim().toLowerCase();
    const editors = editorTargets().filter((item) => item.target);
    const files = await this.workspaceFiles();
    const seen = new Set<string>();
    const found: { suggestion: ContextSuggestion; target: AttachmentTarget }[] = [];
    const add = (kind: ContextSuggestion['kind'], label: string, detail: string, target: AttachmentTarget) => {
      // A file is offered once (as the open editor, before the file list); a selection or a symbol is a part of one.
      const key = kind === 'editor' || kind === 'file' ? target.uri.toString() : `${kind}:${target.uri.toString()}:${target.range?.start ?? ''}`;
      if (seen.has(key) || found.length >= MAX_SUGGESTIONS) return;
      seen.add(key);
      found.push({ suggestion: { kind, label, detail }, target });
    };
    for (const item of editors) {
      const kind = item.target!.kind === 'selection' ? 'selection' : 'editor';
      const label = kind === 'selection' ? 'Selection' : path.posix.basename(item.description || item.label);
      if (matches(wanted, `${label} ${item.description ?? ''}`)) add(kind, label, item.description ?? '', item.target!);
    }
    for (const item of rank(files, wanted)) add('file', item.label, item.description ?? '', item.target!);
    if (wanted.length >= SYMBOL_QUERY_CHARS) {
      for (const symbol of await workspaceSymbols(query.trim())) add('symbol', symbol.name, `${symbolKind(symbol.kind)} · ${vscode.workspace.asRelativePath(symbol.location.uri)}:${symbol.location.range.start.line + 1}`, symbolTarget(symbol));
    }
    if (seq >= this.offered.seq) this.offered = { seq, targets: found.map((entry) => entry.target) };
    return found.map((entry) => entry.suggestion);
  }

  /** What suggestion `index` of list `seq` stands for (a symbol with the text of its lines); undefined for a list replaced since. */
  async target(seq: number, index: number): Promise<AttachmentTarget | undefined> {
    const target = this.offered.seq === seq ? this.offered.targets[index] : undefined;
    if (!target || target.kind !== 'selection' || target.text !== undefined || !target.range) return target;
    const document = await vscode.workspace.openTextDocument(target.uri);
    const lines = new vscode.Range(target.range.start - 1, 0, target.range.end - 1, document.lineAt(Math.min(target.range.end - 1, document.lineCount - 1)).text.length);
    return { ...target, text: document.getText(lines) };
  }

  private workspaceFiles(): Promise<TargetItem[]> {
    const now = Date.now();
    if (!this.files || now - this.files.at > FILES_FRESH_MS) {
      const source = new vscode.CancellationTokenSource();
      this.files = { at: now, items: workspaceFiles(source.token).catch(() => []).finally(() => source.dispose()) };
    }
    return this.files.items;
  }
}

function matches(wanted: string, text: string): boolean {
  return wanted === '' || text.toLowerCase().includes(wanted);
}

/** Files whose name starts with the query first, then those whose name or folder holds it. */
function rank(files: TargetItem[], wanted: string): TargetItem[] {
  if (!wanted) return files.slice(0, MAX_SUGGESTIONS);
  const score = (item: TargetItem) => {
    const name = item.label.toLowerCase();
    if (name.startsWith(wanted)) return 0;
    if (name.includes(wanted)) return 1;
    return `${item.description ?? ''}/${name}`.toLowerCase().includes(wanted) ? 2 : 3;
  };
  return files
    .map((item) => ({ item, score: score(item) }))
    .filter((entry) => entry.score < 3)
    .sort((a, b) => a.score - b.score)
    .map((entry) => entry.item);
}

async function workspaceSymbols(query: string): Promise<vscode.SymbolInformation[]> {
  const ask = Promise.resolve(vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>('vscode.executeWorkspaceSymbolProvider', query)).then(
    (symbols) => (symbols ?? []).filter((symbol) => symbol.location.uri.scheme === 'file'),
    () => [] as vscode.SymbolInformation[],
  );
  const late = new Promise<vscode.SymbolInformation[]>((resolve) => setTimeout(() => resolve([]), SYMBOL_WAIT_MS));
  return Promise.race([ask, late]);
}

/** A symbol attaches as a selection of the lines it spans (read when chosen). */
function symbolTarget(symbol: vscode.SymbolInformation): AttachmentTarget {
  const { start, end } = symbol.location.range;
  return { kind: 'selection', uri: symbol.location.uri, range: { start: start.line + 1, end: Math.max(start.line, end.line) + 1 } };
}

function symbolKind(kind: vscode.SymbolKind): string {
  return (vscode.SymbolKind[kind] ?? 'symbol').toLowerCase();
}
