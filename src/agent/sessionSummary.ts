import type { ChatMessage } from '../providers/types';

const LINE_CHARS = 240;
const MAX_ENTRIES = 60;

/**
 * A markdown summary of the conversation: what the user asked, what the assistant answered,
 * which tools ran. Long texts are cut; only the latest entries are kept.
 */
export function summarizeConversation(messages: readonly ChatMessage[]): string {
  return new ConversationSummaries(messages).before(messages.length);
}

/**
 * Summaries of a conversation's beginnings (the messages before a cut), as summarizeConversation
 * writes them. One pass counts each message's entries; then each summary reads only its latest
 * MAX_ENTRIES entries, so trying many cuts never summarises the whole prefix again.
 */
export class ConversationSummaries {
  /** entriesBefore[i]: how many entries messages[0..i) make. */
  private readonly entriesBefore: Uint32Array;
  /** previousWithEntries[i]: the last message before i that makes any entry, or -1. */
  private readonly previousWithEntries: Int32Array;

  constructor(private readonly messages: readonly ChatMessage[]) {
    this.entriesBefore = new Uint32Array(messages.length + 1);
    this.previousWithEntries = new Int32Array(messages.length + 1);
    let last = -1;
    for (let i = 0; i < messages.length; i++) {
      const count = entryCount(messages[i]);
      this.entriesBefore[i + 1] = this.entriesBefore[i] + count;
      this.previousWithEntries[i] = last;
      if (count > 0) last = i;
    }
    this.previousWithEntries[messages.length] = last;
  }

  /** The summary of messages[0..end). */
  before(end: number): string {
    const total = this.entriesBefore[end];
    if (total === 0) return '';
    const kept: string[] = [];
    for (let i = this.previousWithEntries[end]; i !== -1 && kept.length < MAX_ENTRIES; i = this.previousWithEntries[i]) {
      const entries = entriesOf(this.messages[i]);
      for (let e = entries.length - 1; e >= 0 && kept.length < MAX_ENTRIES; e--) kept.push(entries[e]);
    }
    kept.reverse();
    const dropped = total - kept.length;
    return (dropped > 0 ? [`- _(${dropped} earlier entries left out)_`, ...kept] : kept).join('\n');
  }
}

/** How many entries a message makes; the same as entriesOf(message).length, without writing them. */
function entryCount(message: ChatMessage): number {
  switch (message.role) {
    case 'user':
      return 1;
    case 'assistant':
      return (/\S/.test(message.content) ? 1 : 0) + (message.toolCalls?.length ? 1 : 0);
    case 'tool':
      return /^Error\b/.test(message.content) ? 1 : 0;
    default:
      return 0;
  }
}

const written = new WeakMap<ChatMessage, readonly string[]>();

/** A message's entries, written once per message object (conversations are summarised every round). */
function entriesOf(message: ChatMessage): readonly string[] {
  let entries = written.get(message);
  if (entries) return entries;
  const out: string[] = [];
  switch (message.role) {
    case 'user':
      out.push(`- **User:** ${oneLine(message.content)}`);
      break;
    case 'assistant':
      if (/\S/.test(message.content)) out.push(`- **Assistant:** ${oneLine(message.content)}`);
      if (message.toolCalls?.length) out.push(`- **Tools called:** ${message.toolCalls.map((c) => `\`${c.name}\` ${oneLine(c.arguments, 80)}`).join('; ')}`);
      break;
    case 'tool':
      if (/^Error\b/.test(message.content)) out.push(`- **${message.name} failed:** ${oneLine(message.content, 160)}`);
      break;
    default:
      break;
  }
  entries = out;
  written.set(message, entries);
  return entries;
}

/** The text on one line (whitespace runs made one space), cut at `max`; reads no further than it needs. */
function oneLine(text: string, max = LINE_CHARS): string {
  let flat = '';
  for (const word of text.matchAll(/\S+/g)) {
    flat += flat ? ` ${word[0]}` : word[0];
    if (flat.length > max) return `${flat.slice(0, max)}…`;
  }
  return flat;
}
