/**
 * The text a model gets from another extension's tool result: text parts joined, every other
 * part described in a line (never dropped silently). No vscode import: parts are told apart by
 * their shape, so this is tested in plain Node.
 */
export function describeToolResult(content: readonly unknown[]): string {
  const pieces: string[] = [];
  for (const part of content) {
    if (isObject(part) && typeof part.value === 'string') pieces.push(part.value);
    else if (isObject(part) && typeof part.mimeType === 'string') pieces.push(`[${part.mimeType} content, ${byteLength(part.data)} bytes, not shown]`);
    else if (isObject(part) && 'value' in part) pieces.push('[structured prompt content, not shown]');
    else pieces.push(`[${describeKind(part)} content, not shown]`);
  }
  return pieces.join('\n');
}

function byteLength(data: unknown): number {
  if (data instanceof Uint8Array) return data.byteLength;
  return typeof data === 'string' ? data.length : 0;
}

function describeKind(part: unknown): string {
  if (part === null) return 'empty';
  if (isObject(part)) return part.constructor?.name && part.constructor.name !== 'Object' ? part.constructor.name : 'an unknown kind of';
  return typeof part;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
