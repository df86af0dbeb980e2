/** What Toolbelt knows of a model's limits, from its service or from the table below. */
export interface ModelLimits {
  /** Tokens the model reads and writes in one request. */
  contextTokens: number;
  /** The longest answer it writes, when known. */
  maxOutputTokens?: number;
  /** Where the numbers came from, for the log and the panel. */
  source: 'setting' | 'service' | 'table' | 'default';
}

/** When nothing is known: small enough for most local models served through OpenAI-compatible servers. */
export const UNKNOWN_CONTEXT_TOKENS = 32_768;

/** Known context windows by model name (first match wins); services that report theirs are asked instead. */
const KNOWN_WINDOWS: readonly [RegExp, number, number?][] = [
  [/^gpt-4\.1/, 1_047_576, 32_768],
  [/^gpt-5/, 400_000, 128_000],
  [/^gpt-4o|^chatgpt-4o/, 128_000, 16_384],
  [/^gpt-4-turbo|^gpt-4-\d{4}-preview/, 128_000, 4096],
  [/^gpt-4(-|$)/, 8192, 4096],
  [/^gpt-3\.5-turbo/, 16_385, 4096],
  [/^o[134](-|$)/, 200_000, 100_000],
  [/^gemini-1\.5-pro/, 2_097_152, 8192],
  [/^gemini-(1\.5|2\.\d|2\.5|3)/, 1_048_576, 8192],
  [/^(qwen2\.5|qwen3|qwen2)/, 32_768],
  [/^(llama3\.[1-3]|llama-3\.[1-3])/, 131_072],
  [/^llama3(:|$)/, 8192],
  [/^(mistral-nemo|mistral-small|mistral-large)/, 131_072],
  [/^(mistral|mixtral)/, 32_768],
  [/^(gemma3)/, 131_072],
  [/^(gemma2|gemma)/, 8192],
  [/^(phi4|phi-4)/, 16_384],
  [/^(deepseek-r1|deepseek-v3|deepseek-coder-v2)/, 131_072],
  [/^(gpt-oss)/, 131_072],
];

/** Looks a model up in the table of known windows (names as OpenAI, Gemini and Ollama spell them). */
export function knownLimits(model: string): ModelLimits | undefined {
  const name = model.toLowerCase().replace(/^models\//, '').replace(/^[^/]+\//, '');
  for (const [pattern, contextTokens, maxOutputTokens] of KNOWN_WINDOWS) {
    if (pattern.test(name)) return { contextTokens, maxOutputTokens, source: 'table' };
  }
  return undefined;
}

/** The limits to plan with: the person's setting first, then the service's word, the table, a default. */
export function resolveLimits(model: string, options: { setting?: number; fromService?: ModelLimits }): ModelLimits {
  if (options.setting && options.setting > 0) return { contextTokens: options.setting, source: 'setting', maxOutputTokens: options.fromService?.maxOutputTokens };
  return options.fromService ?? knownLimits(model) ?? { contextTokens: UNKNOWN_CONTEXT_TOKENS, source: 'default' };
}

/** How much of the window to keep free for the answer. */
export function outputReserve(limits: ModelLimits): number {
  const fallback = Math.min(8192, Math.floor(limits.contextTokens / 4));
  return Math.min(limits.maxOutputTokens ?? fallback, Math.floor(limits.contextTokens / 2));
}
