/** The MCP client room: servers' definitions read, started, listed and called within bounds. Outside it, import only this file. */
export { capDefinition } from './definitionCaps';
export { definitionHash, toolDefinitionHash } from './definitionHash';
export { GOVERNED_MCP_FILE, GOVERNED_MCP_ORIGIN, moveServerInFolder } from './governedConfig';
export { MCP_JSON_ORIGIN, USER_SETTINGS_ORIGIN, parseMcpJson, parseMcpServers, type McpInputDefinition, type McpServerConfig } from './mcpConfig';
export { DEFAULT_MCP_LIMITS } from './mcpLimits';
export { McpServerSource, type McpLogger, type McpServerSourceOptions } from './mcpServerSource';
export { readEnvFileText, type McpVariableContext } from './mcpVariables';
export { MessageReader, type MessageCut } from './messageReader';
export { mcpServerSet, needsApproval, type McpDefinition, type McpFolderFiles, type ReservedName } from './serverSet';
