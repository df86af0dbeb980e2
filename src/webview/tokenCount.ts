/**
 * A token count for the context meter: thousands with one decimal where a whole number would
 * mislead (32,768 is 32.8k, not 33k); the meter's tooltip has the exact figure. Pure.
 */
export function compact(tokens: number): string {
  if (tokens < 1000) return String(tokens);
  if (tokens < 1_000_000) {
    const thousands = tokens / 1000;
    return `${Number.isInteger(thousands) || thousands >= 100 ? Math.round(thousands) : thousands.toFixed(1)}k`;
  }
  return `${(tokens / 1_000_000).toFixed(1)}M`;
}
