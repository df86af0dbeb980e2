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
