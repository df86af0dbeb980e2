import * as vscode from 'vscode';
import { Disposables } from './dispose';
import { readChatSettings, type ChatSettings } from '../providers/chatSettings';
import type { PolicySource } from '../policy';

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

/**
 * Where the policy's settings come from in VS Code: each level apart, and a workspace value only in
 * a trusted workspace (they are restricted settings, and this does not rely on VS Code filtering them).
 */
export function policySource(isTrusted: () => boolean = () => vscode.workspace.isTrusted): PolicySource {
  return {
    levels: (key) => {
      const inspected = vscode.workspace.getConfiguration().inspect<unknown>(key);
      return { user: inspected?.globalValue, workspace: isTrusted() ? (inspected?.workspaceFolderValue ?? inspected?.workspaceValue) : undefined };
    },
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


export const MCP_SERVERS_KEY = 'mcp.servers';

/** `toolbelt.mcp.servers` as the person set it in their user settings; never a workspace's value. */
export function readUserMcpServers(): unknown {
  return vscode.workspace.getConfiguration(SECTION).inspect<unknown>(MCP_SERVERS_KEY)?.globalValue;
}
