import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Disposables } from './dispose';
import { PolicyReader, type Policy } from '../policy';
import { DEFAULT_SYSTEM_PROMPT } from '../agent/prompt';
import type { CommandPolicy, ConfirmationRequest, SandboxSetting, ToolContext } from '../tools/types';
import { questionTitle, whyAsked } from '../tools/askWording';
import type { StateStore } from './jsonStateFile';
import { policySource, readExcludeGlobs, readSettings, type SettingsWatcher } from './settings';

/** Workspace state: the hash of the workspace allow-list the person accepted. */
const ACCEPTED_COMMANDS_KEY = 'toolbelt.acceptedWorkspaceCommands';
/** Workspace state: the hash of the workspace's loosening of toolbelt.sandbox.* the person accepted. */
const ACCEPTED_SANDBOX_KEY = 'toolbelt.acceptedWorkspaceSandbox';

export type Confirmer = (request: ConfirmationRequest) => Promise<boolean>;

export interface TrustRuleOptions {
  /** Where accepting a workspace's allow-list is remembered; without one, for this window only. */
  state?: StateStore;
  /** Problems in the settings, and what the person decided, are logged here. */
  log?: vscode.LogOutputChannel;
  /** Rebuilds the rules (and logs their problems) as soon as their settings change. */
  watcher?: SettingsWatcher;
}

/** What the rules are now, for the API: the tools read the same values. */
export interface TrustRulesView {
  sensitiveGlobs: readonly string[];
  commandPolicy: CommandPolicy | undefined;
  /** A workspace allow-list that does not apply until the person accepts it. */
  pendingWorkspaceCommands: readonly string[] | undefined;
}

/**
 * The ToolContext of the open workspace: facts of the workspace only (folders, settings, rules),
 * each read when a tool asks, so they are always current. What belongs to one call — who asks,
 * its undo record, its conversation — comes with the call (ToolCaller), never from here.
 */
export class WorkspaceToolContext extends Disposables implements ToolContext {
  private ripgrep: string | null | undefined;
  private excludes: string[] | undefined;
  private readonly policies: PolicyReader;
  /** Accepted in this window when there is no state store. */
  private acceptedHere: string | undefined;
  private acceptedSandboxHere: string | undefined;
  /** Workspace allow-lists already shown in this window (accepted or not): asked once. */
  private readonly offered = new Set<string>();
  constructor(private readonly trust: TrustRuleOptions = {}) {
    super();
    this.policies = new PolicyReader(
      policySource(),
      () => ({ acceptedCommands: this.acceptedHash(ACCEPTED_COMMANDS_KEY, this.acceptedHere), acceptedSandbox: this.acceptedHash(ACCEPTED_SANDBOX_KEY, this.acceptedSandboxHere) }),
      (policy) => policy.problems.forEach((problem) => this.trust.log?.warn(problem)),
    );
    if (trust.watcher) this.register(trust.watcher.onDidChange((change) => (change.trustRules || change.sandbox) && this.policy()));
  }

  /** The workspace's policy as it applies now (the settings are read each time; it is rebuilt only when they differ). */
  policy(): Policy {
    return this.policies.current();
  }

  get systemPrompt(): string {
    return readSettings().systemPrompt.trim() || DEFAULT_SYSTEM_PROMPT;
  }

  /** Conversations are the callers': a call without one has none. */
  get sessionContext(): string {
    return '';
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

  /** The strictest of the person's and the workspace's `toolbelt.approvals.writes`. */
  get writeApprovals(): 'protected' | 'always' | 'never' {
    return this.policy().writeApprovals;
  }

  get sensitiveGlobs(): readonly string[] {
    return this.policy().sensitiveGlobs;
  }

  /** Read by run_bash as it runs: a workspace allow-list not yet accepted is offered here, once. */
  get commandPolicy(): CommandPolicy | undefined {
    const policy = this.policy();
    if (policy.pending.commands) this.offerWorkspaceCommands(policy.pending.commands);
    return policy.commandPolicy;
  }

  /**
   * Read by run_bash and MCP servers as they start: the person's toolbelt.sandbox.* tightened by the
   * workspace's; what the workspace would loosen is offered here, once, and applies once accepted.
   */
  get sandbox(): SandboxSetting {
    const policy = this.policy();
    if (policy.pending.sandbox) this.offerWorkspaceSandbox(policy.pending.sandbox);
    return policy.sandbox;
  }

  /** What the policy's reader found wrong with the settings now, each prefixed with its level. */
  ruleProblems(): readonly string[] {
    return this.policy().problems;
  }

  /** The rules as they apply now, without offering anything. */
  describeRules(): TrustRulesView {
    const policy = this.policy();
    return { sensitiveGlobs: policy.sensitiveGlobs, commandPolicy: policy.commandPolicy, pendingWorkspaceCommands: policy.pending.commands?.entries };
  }

  /** The hash the person accepted (remembered in the workspace state, or for this window when there is none). */
  private acceptedHash(key: string, here: string | undefined): string | undefined {
    return this.trust.state ? this.trust.state.get<string | undefined>(key, undefined) : here;
  }

  private offerWorkspaceSandbox(pending: { readonly changes: readonly string[]; hash: string }): void {
    if (this.offered.has(pending.hash)) return;
    this.offered.add(pending.hash);
    offerSandboxLoosening(pending, async (hash) => {
      if (this.trust.state) await this.trust.state.update(ACCEPTED_SANDBOX_KEY, hash);
      else this.acceptedSandboxHere = hash;
    }, this.trust.log);
  }

  private offerWorkspaceCommands(pending: { readonly entries: readonly string[]; hash: string }): void {
    if (this.offered.has(pending.hash)) return;
    this.offered.add(pending.hash);
    this.trust.log?.info(`This workspace's toolbelt.runBash.allowedCommands (${pending.entries.join(', ')}) apply only once you accept them.`);
    void askToUseWorkspaceCommands(pending.entries).then(async (use) => {
      if (!use) return this.trust.log?.info('Workspace allowed commands ignored; run_bash asks for them.');
      if (this.trust.state) await this.trust.state.update(ACCEPTED_COMMANDS_KEY, pending.hash);
      else this.acceptedHere = pending.hash;
      this.trust.log?.info(`Workspace allowed commands accepted: ${pending.entries.join(', ')}.`);
    }, (error: unknown) => this.trust.log?.warn(`Could not ask about the workspace's allowed commands: ${String(error)}`));
  }
}

/** Asks once per window whether the workspace may loosen the sandbox; its stricter reading applies meanwhile. */
function offerSandboxLoosening(pending: { readonly changes: readonly string[]; hash: string }, accept: (hash: string) => Promise<void>, log: vscode.LogOutputChannel | undefined): void {
  log?.info(`This workspace's toolbelt.sandbox settings would loosen the sandbox (${pending.changes.join('; ')}); they apply only once you accept them.`);
  void vscode.window
    .showWarningMessage(`This workspace loosens Toolbelt's sandbox: ${pending.changes.join('; ')}. Until you choose Use Them, the stricter settings apply.`, 'Use Them', 'Ignore')
    .then(async (choice) => {
      if (choice !== 'Use Them') return log?.info('Workspace sandbox settings that loosen it were ignored.');
      await accept(pending.hash);
      log?.info(`Workspace sandbox settings accepted: ${pending.changes.join('; ')}.`);
    }, (error: unknown) => log?.warn(`Could not ask about the workspace's sandbox settings: ${String(error)}`));
}

/** A notification (not modal: it may appear during a chat turn, which goes on asking meanwhile). */
async function askToUseWorkspaceCommands(entries: readonly string[]): Promise<boolean> {
  const shown = entries.slice(0, 10).map((e) => `"${e}"`).join(', ') + (entries.length > 10 ? `, and ${entries.length - 10} more` : '');
  const choice = await vscode.window.showWarningMessage(
    `This workspace allows these commands to run without asking: ${shown}. Until you choose Use Them, run_bash asks for them.`,
    'Use Them',
    'Ignore',
  );
  return choice === 'Use Them';
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

/** Asks with a modal dialog, in the words every other way of asking uses; the chat panel asks inside its tool cards instead. */
export const confirmWithDialog: Confirmer = async (request) => {
  const choice = await vscode.window.showWarningMessage(questionTitle(request.tool, request.reason), { modal: true, detail: `${request.summary}\n\n${whyAsked(request)}` }, 'Allow');
  return choice === 'Allow';
};

function fileFolders(): readonly vscode.WorkspaceFolder[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file');
}
