/** The agents room: other agents' files (their MCP entry, hooks, own sandbox) planned, written and inspected. Outside it, import only this file. */
export { AGENT_KINDS, TOOLBELT_COMMAND, agentConfig, mergeAgentConfig, type AgentConfig, type AgentConfigOptions } from './agentConfigs';
export { AGENT_IDS, AGENT_LABELS, type AgentId, type AgentPolicy } from './agentHookFiles';
export { BACKUP_SUFFIX, CODEX_TRUST_NOTE, RefusedFile, VSCODE_EDITS_AUTO_APPROVE, VSCODE_TERMINAL_AUTO_APPROVE, WORKSPACE_SETTINGS_FILE, agentStatuses, changeAgents, lossRuleName, mergeVscodeChatSettings, protectionState, type AgentStatus, type FileChange } from './agentInstall';
export { type LossEntry } from './agentLossReport';
