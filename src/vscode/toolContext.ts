import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ConfirmationRequest, ToolContext } from '../tools/types';
import { readExcludeGlobs, readSettings } from './settings';

/** What the chat knows that tools may read: the live prompt and the conversation summary. */
export interface SessionState {
  readonly systemPrompt: string;
  readonly sessionContext: string;
}

export type Confirmer = (request: ConfirmationRequest) => Promise<boolean>;

/**
 * The ToolContext of the open workspace: every value is read when a tool asks, so folders,
 * settings and the chat's state are always current.
 */
export class WorkspaceToolContext implements ToolContext {
  private ripgrep: string | null | undefined;
  private excludes: string[] | undefined;

  constructor(
    private readonly session: () => SessionState,
    private readonly confirmer: () => Confirmer,
  ) {}

  get systemPrompt(): string {
    return this.session().systemPrompt;
  }

  get sessionContext(): string {
    return this.session().sessionContext;
  }

  get sessionContextFilePath(): string {
    return readSettings().sessionContextFile;
  }

  get workspaceRoot(): string {
    return fileFolders()[0]?.uri.fsPath ?? '';
  }

  get workspaceRoots(): Record<string, string> {
    return Object.fromEntries(fileFolders().map((folder) => [folder.name, folder.uri.fsPath]));
  }

  get rgPath(): string | undefined {
    if (this.ripgrep === undefined) this.ripgrep = findRipgrep(vscode.env.appRoot) ?? null;
    return this.ripgrep ?? undefined;
  }

  get excludeGlobs(): string[] {
    this.excludes ??= readExcludeGlobs();
    return this.excludes;
  }

  /** files.exclude or search.exclude changed. */
  refreshExcludes(): void {
    this.excludes = undefined;
  }

  confirm(request: ConfirmationRequest): Promise<boolean> {
    return this.confirmer()(request);
  }
}

/** The ripgrep VS Code ships: 1.139 keeps one per platform in ripgrep-universal, older builds one in @vscode/ripgrep. */
export function findRipgrep(appRoot: string): string | undefined {
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  const candidates = [
    path.join(appRoot, 'node_modules', '@vscode', 'ripgrep-universal', 'bin', `${process.platform}-${process.arch}`, exe),
    path.join(appRoot, 'node_modules', '@vscode', 'ripgrep', 'bin', exe),
    path.join(appRoot, 'node_modules.asar.unpacked', '@vscode', 'ripgrep', 'bin', exe),
  ];
  return candidates.find((candidate) => existsSync(candidate));
}

/** Asks with a modal dialog; the chat panel replaces this with approval inside its tool cards. */
export const confirmWithDialog: Confirmer = async (request) => {
  const title = request.reason === 'protected' ? `Toolbelt: ${request.tool} wants to change a protected path` : `Toolbelt: allow ${request.tool}?`;
  const choice = await vscode.window.showWarningMessage(title, { modal: true, detail: request.summary }, 'Allow');
  return choice === 'Allow';
};

function fileFolders(): readonly vscode.WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file');
}
