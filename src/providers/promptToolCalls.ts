import type { ChatTool } from '../tools/interface';
import { FenceTracker } from './fenceTracker';
import { LineHead } from './markdownLines';
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
 * through as it arrives, so a person never sees the raw calls. A block is a call only at the top
 * level of the answer: one inside another code block (a model quoting a README, in a ````markdown
 * or ~~~ fence), a block quote or a list item's code block is text shown to the person.
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
    'Write each block at the start of a line of its own, never inside another code block or a quote: a block inside one is shown as text and not run. Write one block per call; several blocks make several calls. After your calls, stop writing: the results come back in the next message, and then you go on. Never invent a result. When you need no tool, answer normally.',
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

/** A call block being read: its opening line, and its body so far (`lineStart`: where its last line begins). */
interface CallBlock {
  tag: string;
  opening: string;
  body: string;
  lineStart: number;
}

/**
 * Splits streamed text into what a person reads and the tool calls inside it, line by line,
 * keeping its place between chunks: every character is looked at once, however the stream is
 * cut. Blocks tagged `tool_call` at the top level are calls; a ```json block there is a call only
 * when it holds {"name", "arguments"} naming a known tool (small models often tag it so),
 * otherwise it is shown as written. Which blocks are top-level, and which are quoted inside
 * other code, FenceTracker decides.
 */
export class PromptToolCallParser {
  private readonly head = new LineHead();
  private readonly fences = new FenceTracker();
  private block: CallBlock | undefined;
  /** The rest of the current line does not change its shape: it passes through in slices. */
  private restOfLine = false;
  /** The line so far, held back while it may still open a call block. */
  private held = '';
  private holding = true;
  private scanned = 0;
  private readonly calls: ParsedPromptCall[] = [];
  private nextId = 1;

  constructor(
    private readonly knownTools: ReadonlySet<string>,
    private readonly idPrefix = `call_prompt_${Date.now().toString(36)}_`,
  ) {}

  /** Characters looked at so far (each once): the parser's work, for tests. */
  get scannedChars(): number {
    return this.scanned;
  }

  /** Feeds a chunk; returns the text to show now. */
  push(chunk: string): string {
    const out: string[] = [];
    let i = 0;
    while (i < chunk.length) {
      if (this.restOfLine) {
        const newline = chunk.indexOf('\n', i);
        const end = newline === -1 ? chunk.length : newline;
        this.scanned += end - i;
        if (end > i) this.emit(chunk.slice(i, end), out);
        i = end;
        if (newline === -1) break;
      }
      const c = chunk[i++];
      this.scanned++;
      if (c === '\n') {
        this.endLine('\n', out);
        continue;
      }
      this.head.step(c);
      if (this.holding) {
        this.held += c;
        if (!this.head.mayOpenCall || !this.fences.mayOpenCall(this.head.column)) this.release(out);
      } else this.emit(c, out);
      if (this.head.plain) this.restOfLine = true;
    }
    return out.join('');
  }

  /** Ends the stream: an unfinished call block becomes a call with an error; returns the last text to show. */
  finish(): { text: string; calls: ParsedPromptCall[] } {
    const out: string[] = [];
    if (this.block) this.endLine('', out);
    else this.release(out);
    const block = this.block;
    this.block = undefined;
    if (block?.tag === TOOL_CALL_FENCE) this.addError('unknown', block.body, 'the ```tool_call block was not closed with ```');
    else if (block) out.push(block.opening, block.body);
    return { text: out.join(''), calls: this.calls };
  }

  /** Shows the held start of the line: it cannot open a call block. */
  private release(out: string[]): void {
    if (this.held) out.push(this.held);
    this.held = '';
    this.holding = false;
  }

  private emit(text: string, out: string[]): void {
    if (this.block) this.block.body += text;
    else out.push(text);
  }

  /** A line ended (`newline` is "" at the end of the stream): what it did to call blocks. */
  private endLine(newline: string, out: string[]): void {
    const event = this.fences.line(this.head.end());
    const block = this.block;
    if (block && !event.end) {
      block.body += newline;
      block.lineStart = block.body.length;
      return this.nextLine();
    }
    // The line just read: held back at the top level, or the last line of the block's body.
    let line = this.held;
    if (block) {
      line = block.body.slice(block.lineStart);
      const body = block.body.slice(0, block.lineStart);
      this.block = undefined;
      if (event.end === 'close') {
        out.push(this.finishBlock(block.tag, body, block.opening, line + newline));
        return this.nextLine();
      }
      out.push(block.opening, body);
    }
    if (event.open !== undefined) this.block = { tag: event.open, opening: line + newline, body: '', lineStart: 0 };
    else out.push(line, newline);
    this.nextLine();
  }

  private nextLine(): void {
    this.head.reset();
    this.restOfLine = false;
    this.held = '';
    this.holding = !this.block && this.fences.mayOpenCall(0);
  }

  /** A closed block: a call (nothing shown), or, for a ```json block that is no call, the block as written. */
  private finishBlock(tag: string, body: string, opening: string, closing: string): string {
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch (error) {
      if (tag !== TOOL_CALL_FENCE) return `${opening}${body}${closing}`;
      this.addError('unknown', body, `the block is not valid JSON (${(error as Error).message})`);
      return '';
    }
    const record = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    const name = typeof record?.name === 'string' ? record.name : undefined;
    const args = record?.arguments ?? record?.parameters ?? {};
    if (tag !== TOOL_CALL_FENCE && (!name || !this.knownTools.has(name))) return `${opening}${body}${closing}`;
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
