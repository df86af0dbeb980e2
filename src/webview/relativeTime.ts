const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * How long ago `then` was, in words, as of `now` (both epoch milliseconds): "just now",
 * "2 minutes ago", "3 hours ago", "yesterday", "3 days ago", "last week", "2 months ago".
 * Days are counted in calendar days of the local time zone, so 23:50 yesterday is "yesterday"
 * at 08:00 even though it is less than a day ago; within six hours the hours are named instead.
 * A time in the future (a clock that moved) reads "just now".
 */
export function relativeTime(then: number, now: number): string {
  const elapsed = now - then;
  if (!Number.isFinite(elapsed) || elapsed < MINUTE) return 'just now';
  if (elapsed < HOUR) return ago(Math.floor(elapsed / MINUTE), 'minute');
  const days = calendarDaysBetween(then, now);
  if (days === 0 || elapsed < 6 * HOUR) return ago(Math.floor(elapsed / HOUR), 'hour');
  if (days === 1) return 'yesterday';
  if (days < 7) return `${days} days ago`;
  if (days < 30) return days < 14 ? 'last week' : `${Math.floor(days / 7)} weeks ago`;
  const months = calendarMonthsBetween(then, now);
  if (months < 12) return months <= 1 ? 'last month' : `${months} months ago`;
  const years = Math.floor(months / 12);
  return years === 1 ? 'last year' : `${years} years ago`;
}

/** Whole calendar days from `then`'s date to `now`'s date in the local time zone (0 = the same day). */
export function calendarDaysBetween(then: number, now: number): number {
  const start = new Date(then);
  const end = new Date(now);
  const startDay = Date.UTC(start.getFullYear(), start.getMonth(), start.getDate());
  const endDay = Date.UTC(end.getFullYear(), end.getMonth(), end.getDate());
  return Math.round((endDay - startDay) / DAY);
}

function calendarMonthsBetween(then: number, now: number): number {
  const start = new Date(then);
  const end = new Date(now);
  const months = (end.getFullYear() - start.getFullYear()) * 12 + end.getMonth() - start.getMonth();
  return end.getDate() < start.getDate() ? Math.max(1, months - 1) : Math.max(1, months);
}

function ago(count: number, unit: string): string {
  if (count === 1) return unit === 'hour' ? 'an hour ago' : 'a minute ago';
  return `${count} ${unit}s ago`;
}
