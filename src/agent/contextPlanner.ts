import { outputReserve, resolveLimits, type ModelLimits } from '../providers/contextWindow';
import { estimateTokens, toolTokens } from '../providers/tokens';
import type { ChatMessage, ChatProvider } from '../providers/types';
import type { ChatTool } from '../tools/interface';
import { fitConversation, messageTokens, type FittedConversation } from './contextBudget';

/** How full the model's context window is for one request; the panel shows it per turn. */
export interface ContextUsage {
  /** Tokens of the request: prompt, tool schemas and the conversation as sent. */
  tokens: number;
  /** The model's whole window. */
  contextTokens: number;
  /** Where the window's size came from. */
  source: ModelLimits['source'];
  /** `estimate`: counted before sending; `reported`: the service's own count afterwards. */
  measured: 'estimate' | 'reported';
  shortenedResults: number;
  droppedMessages: number;
}

export interface PlannedRequest {
  messages: ChatMessage[];
  usage: ContextUsage;
  /** The raw estimate, to calibrate against the service's count. */
  estimatedTokens: number;
}

/**
 * Fits every request into the model's context window. Token counts are estimates (about four
 * characters a token) scaled by how the service's own counts compared on earlier requests.
 */
export class ContextPlanner {
  private readonly limits = new WeakMap<ChatProvider, Promise<ModelLimits>>();
  private scale = 1;
  /** The conversation counted last time: a conversation only grows, so the next count adds the new messages. */
  private counted: { messages: readonly ChatMessage[]; length: number; last: ChatMessage | undefined; tokens: number } | undefined;

  async plan(provider: ChatProvider, systemMessage: ChatMessage | undefined, tools: ChatTool[], messages: readonly ChatMessage[], signal?: AbortSignal): Promise<PlannedRequest> {
    const limits = await this.limitsOf(provider, signal);
    let fixed = systemMessage ? 4 + estimateTokens(systemMessage.content) : 0;
    for (const tool of tools) fixed += toolTokens(tool);
    // The fitting works in raw estimate units: scale the budget rather than every count.
    const budget = { contextTokens: Math.floor(limits.contextTokens / this.scale), reserveOutputTokens: Math.floor(outputReserve(limits) / this.scale), fixedTokens: fixed };
    const total = fixed + this.conversationTokens(messages);
    // Most requests fit as they are: then nothing is copied or counted again.
    const fitted: Omit<FittedConversation, 'messages' | 'limit'> & { messages: readonly ChatMessage[] } =
      total <= Math.max(0, budget.contextTokens - budget.reserveOutputTokens)
        ? { messages, tokens: total, shortenedResults: 0, droppedMessages: 0 }
        : fitConversation(messages, budget, estimateTokens);
    return {
      messages: systemMessage ? [systemMessage, ...fitted.messages] : [...fitted.messages],
      estimatedTokens: fitted.tokens,
      usage: {
        tokens: Math.round(fitted.tokens * this.scale),
        contextTokens: limits.contextTokens,
        source: limits.source,
        measured: 'estimate',
        shortenedResults: fitted.shortenedResults,
        droppedMessages: fitted.droppedMessages,
      },
    };
  }

  /** Tokens of the conversation, counting only the messages added since the last request. */
  private conversationTokens(messages: readonly ChatMessage[]): number {
    const counted = this.counted;
    const grown = counted !== undefined && counted.messages === messages && messages.length >= counted.length && messages[counted.length - 1] === counted.last;
    let tokens = grown ? counted.tokens : 0;
    for (let i = grown ? counted.length : 0; i < messages.length; i++) tokens += messageTokens(messages[i], estimateTokens);
    this.counted = { messages, length: messages.length, last: messages[messages.length - 1], tokens };
    return tokens;
  }

  /** Learns from the service's count of a request whose raw estimate was `estimated`. */
  calibrate(estimated: number, reported: number | undefined): void {
    if (!reported || reported <= 0 || estimated < 200) return;
    const ratio = Math.min(3, Math.max(0.5, reported / estimated));
    this.scale = this.scale === 1 ? ratio : this.scale * 0.5 + ratio * 0.5;
  }

  get tokenScale(): number {
    return this.scale;
  }

  private limitsOf(provider: ChatProvider, signal?: AbortSignal): Promise<ModelLimits> {
    let limits = this.limits.get(provider);
    if (!limits) {
      const fallback = resolveLimits(provider.model, {});
      limits = provider.limits
        ? provider.limits(signal).catch(() => {
            this.limits.delete(provider);
            return fallback;
          })
        : Promise.resolve(fallback);
      this.limits.set(provider, limits);
    }
    return limits;
  }
}
