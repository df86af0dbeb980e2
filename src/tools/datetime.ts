import type { ToolHandler } from './builtinTool';

export interface DateTimeResult {
  iso: string;
  date: string;
  time: string;
  timezone: string;
}

/** The current time in an IANA zone; anything Intl does not recognise falls back to UTC. */
export function currentDateTime(timezone: unknown, now: Date = new Date()): DateTimeResult {
  const zone = resolveZone(timezone);
  if (zone === 'UTC') {
    const iso = now.toISOString();
    return { iso, date: iso.slice(0, 10), time: iso.slice(11, 19), timezone: 'UTC' };
  }
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    })
      .formatToParts(now)
      .map((p) => [p.type, p.value]),
  );
  const date = `${parts.year}-${parts.month}-${parts.day}`;
  const time = `${parts.hour}:${parts.minute}:${parts.second}`;
  // "GMT+05:30" → "+05:30"; plain "GMT" is a zero offset.
  const offset = parts.timeZoneName === 'GMT' ? '+00:00' : String(parts.timeZoneName).replace('GMT', '');
  const millis = String(now.getUTCMilliseconds()).padStart(3, '0');
  return { iso: `${date}T${time}.${millis}${offset}`, date, time, timezone: zone };
}

/** The zone as the caller named it (ICU may answer an alias: Asia/Kolkata → Asia/Calcutta), or UTC. */
function resolveZone(timezone: unknown): string {
  if (typeof timezone !== 'string' || timezone.trim() === '') return 'UTC';
  const requested = timezone.trim();
  try {
    const resolved = new Intl.DateTimeFormat('en-US', { timeZone: requested }).resolvedOptions().timeZone;
    if (['UTC', 'Etc/UTC', 'Etc/GMT', 'GMT'].includes(resolved) && /^(etc\/)?(utc|gmt|zulu|z)$/i.test(requested)) return 'UTC';
    return resolved.toLowerCase() === requested.toLowerCase() ? resolved : requested;
  } catch {
    return 'UTC';
  }
}

export const getCurrentDatetime: ToolHandler = async (args) => JSON.stringify(currentDateTime(args.timezone));
