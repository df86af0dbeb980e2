/**
 * JSON with object keys sorted at every level, so key order never changes it: the one meaning of
 * "the same call" and "the same definition". Undefined members are left out, as JSON.stringify
 * leaves them out, so `{a: undefined}` and `{}` are the same.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** One key for one call: the tool and its arguments, whatever order the keys came in. */
export function callKey(tool: string, input: unknown): string {
  return `${tool}\u0000${canonicalJson(input)}`;
}
