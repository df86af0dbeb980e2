/*
 * Toolbelt's core as a library: the tools, their policy, the providers and the Agent, with no
 * `vscode` anywhere below (a build check bundles this file with nothing external). The CLI and
 * the MCP server (`toolbelt mcp | run | policy`) import from here; the extension reaches the same
 * modules directly.
 */
export { Agent, type AgentOptions } from './agent/agent';
export type { AgentEvent, AgentSettings } from './agent/agentLoop';
export { createProvider, type ProviderConfig } from './agent/runtime';
export { GeminiProvider } from './providers/gemini';
export { OllamaProvider } from './providers/ollama';
export { OpenAIProvider } from './providers/openai';
export { BuiltinTool, type BuiltinImplementation, type ToolConsent } from './tools/builtinTool';
export { contextCaller, type ToolCaller } from './tools/caller';
export { CheckpointStore } from './tools/undo';
export { obtainConsent, verdictOf, type ConsentPlan, type ConsentQuestion, type Verdict } from './tools/consent';
export { createBuiltinTool, createDefaultToolRegistry } from './tools/factory';
export type { ChatTool, ExecutableTool, ToolExecuteOptions, ToolResult, ToolStatus } from './tools/interface';
export { BUILTIN_MANIFEST, BUILTIN_NAMES, findBuiltin } from './tools/manifest';
export { isProtectedPath } from './tools/protectedPaths';
export { ToolRegistry, type ToolRunReport } from './tools/registry';
export { DEFAULT_SENSITIVE_GLOBS } from './tools/sensitiveFiles';
export { MemoryToolCallLog, ToolCallLog, toRecord, type ToolCallRecord } from './tools/toolCallLog';
export { ToolManager, type ApplyResult, type RegisteredTool } from './tools/toolManager';
export type { ToolSource } from './tools/toolSource';
export type { ChangeTarget, CommandPolicy, ConfirmationReason, ConfirmationRequest, ToolContext, ToolDefinition, ToolRisk } from './tools/types';
