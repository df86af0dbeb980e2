import type { ChatTool, ExecutableTool, ToolExecuteOptions } from './interface';
import { toGeminiTools, toOpenAITools, type GeminiTools } from './formats';

interface Entry {
  tool: ExecutableTool;
  enabled: boolean;
}

/**
 * The tools an agent may use. Lookup by name is O(1); iteration keeps registration order.
 * Only enabled tools are offered to a model, and only they execute.
 */
export class ToolRegistry {
  private readonly entries = new Map<string, Entry>();

  /** Adds a tool, enabled. A second tool with a taken name throws; the first stays. */
  register(tool: ExecutableTool): void {
    if (!tool || typeof tool.name !== 'string' || tool.name.length === 0) {
      throw new Error('Cannot register a tool without a name');
    }
    if (this.entries.has(tool.name)) throw new Error(`Tool "${tool.name}" is already registered`);
    validateSchema(tool.name, tool.getSchema());
    this.entries.set(tool.name, { tool, enabled: true });
  }

  /** Removes a tool; unknown names are ignored. */
  unregister(name: string): void {
    this.entries.delete(name);
  }

  /** Returns false when no such tool is registered. */
  enable(name: string): boolean {
    return this.setEnabled(name, true);
  }

  /** Returns false when no such tool is registered. */
  disable(name: string): boolean {
    return this.setEnabled(name, false);
  }

  get(name: string): ExecutableTool | undefined {
    return this.entries.get(name)?.tool;
  }

  list(): ExecutableTool[] {
    return [...this.entries.values()].map((e) => e.tool);
  }

  getToolNames(): string[] {
    return [...this.entries.keys()];
  }

  hasTool(name: string): boolean {
    return this.entries.has(name);
  }

  isToolEnabled(name: string): boolean {
    return this.entries.get(name)?.enabled ?? false;
  }

  getEnabledSchemas(): ChatTool[] {
    return this.enabledTools().map((t) => t.getSchema());
  }

  /**
   * The enabled tools in a provider's format, optionally narrowed to `allowedTools`
   * (registration order kept). OpenAI and Ollama get ChatTool[]; Gemini gets
   * `{functionDeclarations}`.
   */
  getToolsForProvider(provider: 'openai' | 'ollama', allowedTools?: string[]): ChatTool[];
  getToolsForProvider(provider: 'gemini', allowedTools?: string[]): GeminiTools;
  getToolsForProvider(provider: string, allowedTools?: string[]): ChatTool[] | GeminiTools;
  getToolsForProvider(provider: string, allowedTools?: string[]): ChatTool[] | GeminiTools {
    const allowed = allowedTools ? new Set(allowedTools) : undefined;
    const schemas = this.enabledTools()
      .filter((t) => !allowed || allowed.has(t.name))
      .map((t) => t.getSchema());
    switch (provider) {
      case 'openai':
      case 'ollama':
        return toOpenAITools(schemas);
      case 'gemini':
        return toGeminiTools(schemas);
      default:
        throw new Error(`Provider "${provider}" is not supported; use openai, ollama or gemini`);
    }
  }

  /**
   * Runs an enabled tool. Never rejects: a missing, disabled or failing tool yields an
   * error string the model can read.
   */
  async execute(name: string, args: Record<string, unknown>, options?: ToolExecuteOptions): Promise<string> {
    const entry = this.entries.get(name);
    if (!entry) return `Error: tool "${name}" not found`;
    if (!entry.enabled) return `Error: tool "${name}" is not available (it is disabled)`;
    try {
      const result = await entry.tool.execute(args ?? {}, options);
      return typeof result === 'string' ? result : JSON.stringify(result) ?? String(result);
    } catch (error) {
      return `Error executing ${name}: ${errorMessage(error)}`;
    }
  }

  private enabledTools(): ExecutableTool[] {
    return [...this.entries.values()].filter((e) => e.enabled).map((e) => e.tool);
  }

  private setEnabled(name: string, enabled: boolean): boolean {
    const entry = this.entries.get(name);
    if (!entry) return false;
    entry.enabled = enabled;
    return true;
  }
}

function validateSchema(name: string, schema: ChatTool): void {
  const fn = schema?.function;
  if (schema?.type !== 'function' || !fn) throw new Error(`Tool "${name}" must describe itself as {type: "function", function: {...}}`);
  if (fn.name !== name) throw new Error(`Tool "${name}" has a schema named "${fn.name}"; the names must match`);
  if (typeof fn.description !== 'string' || fn.description.trim() === '') throw new Error(`Tool "${name}" needs a description`);
  if (fn.parameters?.type !== 'object' || typeof fn.parameters.properties !== 'object') {
    throw new Error(`Tool "${name}" parameters must be a JSON Schema of type "object" with properties`);
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
