import * as vscode from 'vscode';
import { Disposables } from './dispose';
import { readChatSettings, type ChatSettings } from '../providers/chatSettings';
import type { SandboxSettingValues } from '../tools/sandboxSettings';
import { strictestWriteApprovals, type WriteApprovals } from '../tools/writeApprovals';

export const SECTION = 'toolbelt';
export const REGISTRY_KEY = 'tools.registry';

/** The chat's settings, read by the one reader the CLI uses too (readChatSettings). */
export type ToolbeltSettings = ChatSettings;

export function readSettings(): ToolbeltSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return readChatSettings((key) => config.get<unknown>(key));
}

/** The raw `toolbelt.tools.registry` value, whatever the user wrote: ToolManager judges it. */
export function readRegistryEntries(): unknown {
  return vscode.workspace.getConfiguration(SECTION).get<unknown>(REGISTRY_KEY);
}

/** Globs from `files.exclude` and `search.exclude` that are switched on. */
export function readExcludeGlobs(): string[] {
  const globs = new Set<string>();
  for (const [section, key] of [['files', 'exclude'], ['search', 'exclude']] as const) {
    const value = vscode.workspace.getConfiguration(section).get<Record<string, unknown>>(key) ?? {};
    for (const [glob, on] of Object.entries(value)) if (on === true) globs.add(glob);
  }
  return [...globs];
}

export const SENSITIVE_FILES_KEY = 'tools.sensitiveFiles';
export const ALLOWED_COMMANDS_KEY = 'runBash.allowedCommands';
export const DENIED_COMMANDS_KEY = 'runBash.deniedCommands';

/** A setting's value at the person's own level and at the workspace's (undefined where unset). */
interface Levels {
  user: unknown;
  workspace: unknown;
}

/**
 * The settings that decide what tools may do without asking, read level by level: a workspace
 * value counts only in a trusted workspace (they are restricted settings, and this does not rely
 * on VS Code filtering them).
 */
export interface TrustRuleSettings {
  sensitiveFiles: Levels;
  allowedCommands: Levels;
  deniedCommands: Levels;
}

export function readTrustRuleSettings(trusted: boolean = vscode.workspace.isTrusted): TrustRuleSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const levels = (key: string): Levels => {
    const inspected = config.inspect<unknown>(key);
    return { user: inspected?.globalValue, workspace: trusted ? (inspected?.workspaceFolderValue ?? inspected?.workspaceValue) : undefined };
  };
  return {
    sensitiveFiles: levels(SENSITIVE_FILES_KEY),
    allowedCommands: levels(ALLOWED_COMMANDS_KEY),
    deniedCommands: levels(DENIED_COMMANDS_KEY),
  };
}

export const SANDBOX_KEYS = { mode: 'sandbox.mode', network: 'sandbox.network', allowedDomains: 'sandbox.allowedDomains', hiddenPaths: 'sandbox.hiddenPaths', env: 'sandbox.env', readablePaths: 'sandbox.readablePaths', writablePaths: 'sandbox.writablePaths', readOnlyPaths: 'sandbox.readOnlyPaths' } as const;

/** `toolbelt.sandbox.*` level by level (workspace values only in a trusted workspace); buildSandboxRules combines them. */
export function readSandboxSettings(trusted: boolean = vscode.workspace.isTrusted): SandboxSettingValues {
  const config = vscode.workspace.getConfiguration(SECTION);
  const levels = (key: string): Levels => {
    const inspected = config.inspect<unknown>(key);
    return { user: inspected?.globalValue, workspace: trusted ? (inspected?.workspaceFolderValue ?? inspected?.workspaceValue) : undefined };
  };
  return {
    mode: levels(SANDBOX_KEYS.mode),
    network: levels(SANDBOX_KEYS.network),
    allowedDomains: levels(SANDBOX_KEYS.allowedDomains),
    hiddenPaths: levels(SANDBOX_KEYS.hiddenPaths),
    env: levels(SANDBOX_KEYS.env),
    readablePaths: levels(SANDBOX_KEYS.readablePaths),
    writablePaths: levels(SANDBOX_KEYS.writablePaths),
    readOnlyPaths: levels(SANDBOX_KEYS.readOnlyPaths),
  };
}

export interface SettingsChange {
  registry: boolean;
  chat: boolean;
  excludes: boolean;
  /** toolbelt.tools.sensitiveFiles or toolbelt.runBash.* changed. */
  trustRules: boolean;
  /** toolbelt.sandbox.* changed. */
  sandbox: boolean;
}

/** The one configuration listener: fires a typed event when a setting Toolbelt reads changes. */
export class SettingsWatcher extends Disposables {
  private readonly emitter = this.register(new vscode.EventEmitter<SettingsChange>());
  readonly onDidChange = this.emitter.event;

  constructor() {
    super();
    this.register(vscode.workspace.onDidChangeConfiguration((event) => {
      const excludes = event.affectsConfiguration('files.exclude') || event.affectsConfiguration('search.exclude');
      if (!event.affectsConfiguration(SECTION) && !excludes) return;
      this.emitter.fire({
        registry: event.affectsConfiguration(`${SECTION}.${REGISTRY_KEY}`),
        chat: ['provider', 'model', 'baseUrl', 'systemPrompt', 'chat', 'toolCalling'].some((key) => event.affectsConfiguration(`${SECTION}.${key}`)),
        excludes,
        trustRules: [SENSITIVE_FILES_KEY, 'runBash'].some((key) => event.affectsConfiguration(`${SECTION}.${key}`)),
        sandbox: event.affectsConfiguration(`${SECTION}.sandbox`),
      });
    }));
  }
}


/** `toolbelt.approvals.writes` over the levels that set it, by the one rule (strictestWriteApprovals). */
export function readWriteApprovals(): WriteApprovals {
  const inspected = vscode.workspace.getConfiguration(SECTION).inspect<string>('approvals.writes');
  return strictestWriteApprovals([inspected?.globalValue, inspected?.workspaceValue, inspected?.workspaceFolderValue]);
}

export const MCP_SERVERS_KEY = 'mcp.servers';

/** `toolbelt.mcp.servers` as the person set it in their user settings; never a workspace's value. */
export function readUserMcpServers(): unknown {
  return vscode.workspace.getConfiguration(SECTION).inspect<unknown>(MCP_SERVERS_KEY)?.globalValue;
}
