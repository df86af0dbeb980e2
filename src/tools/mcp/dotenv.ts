/**
 * Parses dotenv text: `KEY=value` lines, optional `export `, `#` comments, single quotes (literal)
 * and double quotes (`\n`, `\t`, `\"`, `\\` escapes). Lines that are not assignments are skipped.
 */
export function parseDotenv(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.replace(/^\uFEFF/, '').split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    env[match[1]] = unquote(match[2]);
  }
  return env;
}

function unquote(value: string): string {
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.length > 1) {
    const end = value.lastIndexOf(quote);
    if (end > 0) {
      const inner = value.slice(1, end);
      if (quote === "'") return inner;
      return inner.replace(/\\([nrt"\\])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t', '"': '"', '\\': '\\' })[c] ?? c);
    }
  }
  // An unquoted value ends at a comment that follows whitespace.
  return value.replace(/\s+#.*$/, '').trim();
}
