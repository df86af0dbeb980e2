import type { TranscriptItem } from '../protocol';
import type { ToolCaller } from '../tools/caller';
import type { ToolResult } from '../tools/interface';
import type { ToolRegistry } from '../tools/registry';

/** What a chat gives a tool call the person started from the panel (Apply to File). */
export interface PersonToolCallTurn {
  registry: Pick<ToolRegistry, 'run'>;
  /** The chat as the call's caller (its approvals, its undo record). */
  caller: ToolCaller;
  /** The card's item id for this call. */
  cardId: string;
  /** Shows or updates the call's card. */
  upsert(item: TranscriptItem): void;
  /** Marks the card as the one an approval request shows in (undefined when the call ended). */
  setAsking(cardId: string | undefined): void;
  /** How much of a result a card carries. */
  cardResultChars: number;
}

/**
 * Runs one tool call the person asked for through the registry, exactly as a model's call runs:
 * the same approvals (protected paths, `toolbelt.approvals.writes`), the same undo record and
 * the same tool-call log. It shows as a tool card of its own; the result is the tool's.
 */
export async function runPersonToolCall(turn: PersonToolCallTurn, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
  const argumentsText = JSON.stringify(args);
  turn.upsert({ kind: 'tool', id: turn.cardId, name, arguments: argumentsText, status: 'running' });
  turn.setAsking(turn.cardId);
  try {
    const result = await turn.registry.run(name, args, { signal, caller: turn.caller });
    turn.upsert({
      kind: 'tool',
      id: turn.cardId,
      name,
      arguments: argumentsText,
      status: result.status === 'refused' ? 'denied' : result.status,
      result: result.text.slice(0, turn.cardResultChars),
      resultTruncated: result.text.length > turn.cardResultChars,
      durationMs: Math.round(result.durationMs),
    });
    return result;
  } finally {
    turn.setAsking(undefined);
  }
}
