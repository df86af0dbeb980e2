/** A JSON Schema object as the tool-calling APIs accept it (the subset the manifest uses). */
export interface JsonSchema {
  type?: 'object' | 'string' | 'number' | 'integer' | 'boolean' | 'array';
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: readonly (string | number | boolean)[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
  [keyword: string]: unknown;
}

/** The parameters of a tool: always a JSON Schema of type "object". */
export interface ToolParameters extends JsonSchema {
  type: 'object';
  properties: Record<string, JsonSchema>;
}

/** A tool as the OpenAI Chat Completions API (and Ollama) receives it. */
export interface ChatTool {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: ToolParameters;
  };
}

export interface ToolExecuteOptions {
  /** Aborting stops the tool; run_bash kills its whole process tree. */
  signal?: AbortSignal;
}

/** A tool the registry can offer to a model and run. */
export interface ExecutableTool {
  readonly name: string;
  getSchema(): ChatTool;
  execute(args: Record<string, unknown>, options?: ToolExecuteOptions): Promise<string>;
}
