import type { ChatTool } from '../tools/interface';
import type { ToolCall } from './types';

/**
 * Tool calling for models without native support: the tools are described in the system
 * prompt, and the model calls one by writing a fenced block
 *
 *     ```tool_call
 *     {"name": "read_file", "arguments": {"path": "README.md"}}
 *     ```
 *
 * `PromptToolCallParser` reads such blocks out of the streamed text; text outside them passes
 * through as it arrives, so a person never sees the raw calls.
 */

export const TOOL_CALL_FENCE = 'tool_call';

/** One call read from the text; `error` is set when the block could not be read as a call. */
export interface ParsedPromptCall {
  call: ToolCall;
  error?: string;
}

export function toolsPrompt(tools: readonly ChatTool[]): string {
  const described = tools
    .map((t) => `### ${t.function.name}\n${t.function.description}\nParameters (JSON Schema): ${JSON.stringify(t.function.parameters)}`)
    .join('\n\n');
  return [
    '# Tools',
    'You can call the tools below. To call one, write a fenced block tagged `tool_call` holding one JSON object with the tool\'s "name" and its "arguments", and nothing else in the block:',
    '',
    '```tool_call',
    '{"name": "<tool name>", "arguments": {"<parameter>": "<value>"}}',
    '```',
    '',
    'Write one block per call; several blocks make several calls. After your calls, stop writing: the results come back in the next message, and then you go on. Never invent a result. When you need no tool, answer normally.',
    '',
    described,
  ].join('\n');
}

/** How a call is written back into the conversation the model sees. */
export function formatPromptCall(call: ToolCall): string {
  let args: unknown = call.arguments;
  try {
    args = call.arguments.trim() ? JSON.parse(call.arguments) : {};
  } catch {
    // Keep the raw text: the model sees what it sent.
  }
  return `\`\`\`${TOOL_CALL_FENCE}\n${JSON.stringify({ name: call.name, arguments: args })}\n\`\`\``;
}

type State = { mode: 'text' } | { mode: 'block'; tag: string; body: string; opening: string };

/**
 * Splits streamed text into what a person reads and the tool calls inside it. Blocks tagged
 * `tool_call` are calls; a ```json block is a call only when it holds {"name", "arguments"}
 * naming a known tool (small models often tag it so), otherwise it is shown as written.
 */
export class PromptToolCallParser {
  private state: State = { mode: 'text' };
  /** Text held back because it may be the start of a fence. */
  private pending = '';
  private readonly calls: ParsedPromptCall[] = [];
  private nextId = 1;

  constructor(
    private readonly knownTools: ReadonlySet<string>,
    private readonly idPrefix = `call_prompt_${Date.now().toString(36)}_`,
  ) {}

  /** Feeds a chunk; returns the text to show now. */
  push(chunk: string): string {
    let input = this.pending + chunk;
    this.pending = '';
    let shown = '';
    while (input) {
      if (this.state.mode === 'text') {
        const fence = findFenceStart(input);
        if (fence === -1) {
          const hold = partialFenceSuffix(input);
          shown += input.slice(0, input.length - hold);
          this.pending = input.slice(input.length - hold);
          return shown;
        }
        const lineEnd = input.indexOf('\n', fence);
        if (lineEnd === -1) {
          // The fence's tag line is not complete yet.
          shown += input.slice(0, fence);
          this.pending = input.slice(fence);
          return shown;
        }
        const tag = input.slice(fence + 3, lineEnd).trim().toLowerCase();
        if (tag !== TOOL_CALL_FENCE && tag !== 'json') {
          shown += input.slice(0, lineEnd + 1);
          input = input.slice(lineEnd + 1);
          continue;
        }
        shown += input.slice(0, fence);
        this.state = { mode: 'block', tag, body: '', opening: input.slice(fence, lineEnd + 1) };
        input = input.slice(lineEnd + 1);
      } else {
        const block = this.state;
        const text = block.body + input;
        const close = findClosingFence(text);
        if (close === -1) {
          block.body = text;
          return shown;
        }
        const body = text.slice(0, close.start);
        input = text.slice(close.end);
        this.state = { mode: 'text' };
        shown += this.finishBlock(block.tag, body, block.opening);
      }
    }
    return shown;
  }

  /** Ends the stream: an unfinished block becomes a call with an error; returns the last text to show. */
  finish(): { text: string; calls: ParsedPromptCall[] } {
    let text = this.pending;
    this.pending = '';
    if (this.state.mode === 'block') {
      const { tag, body, opening } = this.state;
      this.state = { mode: 'text' };
      const close = findClosingFence(body, true);
      if (close !== -1) text += this.finishBlock(tag, body.slice(0, close.start), opening);
      else if (tag === TOOL_CALL_FENCE) this.addError('unknown', body, 'the ```tool_call block was not closed with ```');
      else text += `${opening}${body}`;
    }
    return { text, calls: this.calls };
  }

  private finishBlock(tag: string, body: string, opening: string): string {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (error) {
      if (tag !== TOOL_CALL_FENCE) return `${opening}${body}\`\`\``;
      this.addError('unknown', body, `the block is not valid JSON (${(error as Error).message})`);
      return '';
    }
    const record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    const name = typeof record?.name === 'string' ? record.name : undefined;
    const args = record?.arguments ?? record?.parameters ?? {};
    if (tag !== TOOL_CALL_FENCE && (!name || !this.knownTools.has(name))) return `${opening}${body}\`\`\``;
    if (!name) {
      this.addError('unknown', body, 'the block has no "name" naming the tool');
      return '';
    }
    const argumentText = typeof args === 'string' ? args : JSON.stringify(args);
    this.calls.push({ call: { id: this.newId(), name, arguments: argumentText } });
    return '';
  }

  private addError(name: string, body: string, problem: string): void {
    const preview = body.length > 200 ? `${body.slice(0, 200)}…` : body;
    this.calls.push({
      call: { id: this.newId(), name, arguments: '' },
      error: `Error: a tool call could not be read: ${problem}. Nothing was run. Write each call as a \`\`\`${TOOL_CALL_FENCE} block holding one JSON object like {"name": "<tool>", "arguments": {...}}. Received: ${preview}`,
    });
  }

  private newId(): string {
    return `${this.idPrefix}${this.nextId++}`;
  }
}

/** Index of "```" at the start of a line, or -1. */
function findFenceStart(text: string): number {
  for (let i = text.indexOf('```'); i !== -1; i = text.indexOf('```', i + 1)) {
    if (i === 0 || text[i - 1] === '\n') return i;
  }
  return -1;
}

/** A closing "```" at the start of a line, with a newline after it (or the end of the whole answer). */
function findClosingFence(text: string, atEnd = false): { start: number; end: number } | -1 {
  for (let i = text.indexOf('```'); i !== -1; i = text.indexOf('```', i + 1)) {
    if (i !== 0 && text[i - 1] !== '\n') continue;
    const after = text.slice(i + 3);
    const lineEnd = after.indexOf('\n');
    const rest = lineEnd === -1 ? after : after.slice(0, lineEnd);
    if (rest.trim() !== '') continue;
    if (lineEnd === -1) return atEnd ? { start: i, end: text.length } : -1;
    return { start: i, end: i + 3 + lineEnd + 1 };
  }
  return -1;
}

/** How many characters at the end might begin a fence once more text arrives. */
function partialFenceSuffix(text: string): number {
  for (let n = Math.min(2, text.length); n > 0; n--) {
    const tail = text.slice(text.length - n);
    if (/^`+$/.test(tail) && (text.length === n || text[text.length - n - 1] === '\n')) return n;
  }
  return 0;
}
