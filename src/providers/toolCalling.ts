import { ProviderError } from './errors';
import { PromptToolCallingProvider } from './promptToolCalling';
import type { ChatProvider, ChatRequest, ProviderEvent, ToolCallingMode } from './types';
import { WrappedProvider } from './wrappedProvider';

/** What servers say when a model cannot take tools (Ollama, llama.cpp, vLLM, LM Studio word it differently). */
const NO_TOOL_SUPPORT = /does not support tools|tools? (?:are|is) not supported|(?:tool|function)[ _-]?(?:calling|call|use|choice)s? (?:is |are )?not supported|unsupported[^.]*\btools?\b/i;

/**
 * Gives a provider the tool calling the person chose: `native` leaves it as it is, `prompt`
 * always describes the tools in the prompt, and `auto` uses the model's own tool calling unless
 * the service says the model has none (Ollama's capabilities) or refuses a request for its tools,
 * then goes on with the prompt for the rest of the session.
 */
export function withToolCalling(provider: ChatProvider, mode: ToolCallingMode): ChatProvider {
  if (mode === 'native') return provider;
  if (mode === 'prompt') return new PromptToolCallingProvider(provider);
  return new AutoToolCallingProvider(provider);
}

export class AutoToolCallingProvider extends WrappedProvider {
  private readonly prompt: PromptToolCallingProvider;
  /** Decided after the first request with tools: true once the model has shown it cannot take them. */
  private usePrompt: boolean | undefined;

  constructor(inner: ChatProvider) {
    super(inner);
    this.prompt = new PromptToolCallingProvider(inner);
  }

  /** How tools reach the model now: undefined until a request with tools decided it. */
  get toolCalling(): 'native' | 'prompt' | undefined {
    return this.usePrompt === undefined ? undefined : this.usePrompt ? 'prompt' : 'native';
  }

  async *stream(request: ChatRequest): AsyncIterable<ProviderEvent> {
    if (request.tools.length === 0) {
      yield* this.inner.stream(request);
      return;
    }
    if (this.usePrompt === undefined && this.inner.supportsTools) {
      this.usePrompt = !(await this.inner.supportsTools(request.signal).catch(() => true));
    }
    if (this.usePrompt) {
      yield* this.prompt.stream(request);
      return;
    }
    let answered = false;
    try {
      for await (const event of this.inner.stream(request)) {
        answered = true;
        yield event;
      }
      this.usePrompt = false;
    } catch (error) {
      if (answered || !refusesTools(error)) throw error;
      this.usePrompt = true;
      yield* this.prompt.stream(request);
    }
  }
}

export function refusesTools(error: unknown): boolean {
  return error instanceof ProviderError && error.kind === 'bad_request' && NO_TOOL_SUPPORT.test(error.message);
}
