import type { ChatMessage } from '../providers/types';

const LINE_CHARS = 240;
const MAX_ENTRIES = 60;

/**
 * A markdown summary of the conversation: what the user asked, what the assistant answered,
 * which tools ran. Long texts are cut; only the latest entries are kept.
 */
export function summarizeConversation(messages: readonly ChatMessage[]): string {
  const entries: string[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'user':
        entries.push(`- **User:** ${oneLine(message.content)}`);
        break;
      case 'assistant':
        if (message.content.trim()) entries.push(`- **Assistant:** ${oneLine(message.content)}`);
        if (message.toolCalls?.length) entries.push(`- **Tools called:** ${message.toolCalls.map((c) => `\`${c.name}\` ${oneLine(c.arguments, 80)}`).join('; ')}`);
        break;
      case 'tool':
        if (/^Error\b/.test(message.content)) entries.push(`- **${message.name} failed:** ${oneLine(message.content, 160)}`);
        break;
      default:
        break;
    }
  }
  if (entries.length === 0) return '';
  const dropped = entries.length - MAX_ENTRIES;
  const kept = dropped > 0 ? [`- _(${dropped} earlier entries left out)_`, ...entries.slice(-MAX_ENTRIES)] : entries;
  return kept.join('\n');
}

function oneLine(text: string, max = LINE_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}
