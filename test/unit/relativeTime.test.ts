import * as assert from 'node:assert/strict';
import { calendarDaysBetween, relativeTime } from '../../src/webview/relativeTime';

describe('relativeTime (how long ago, for the history list)', () => {
  // Local times, so calendar days are the ones the person sees whatever the machine's zone.
  const at = (day: number, hour: number, minute = 0, month = 10, year = 2026) => new Date(year, month, day, hour, minute).getTime();
  const now = at(26, 10, 0); // Thursday 26 November 2026, 10:00

  it('names minutes and hours within the day', () => {
    assert.equal(relativeTime(now - 10_000, now), 'just now');
    assert.equal(relativeTime(now + 5 * 60_000, now), 'just now', 'a clock that moved back reads just now');
    assert.equal(relativeTime(now - 60_000, now), 'a minute ago');
    assert.equal(relativeTime(now - 2 * 60_000 - 30_000, now), '2 minutes ago');
    assert.equal(relativeTime(now - 59 * 60_000, now), '59 minutes ago');
    assert.equal(relativeTime(at(26, 9, 0), now), 'an hour ago');
    assert.equal(relativeTime(at(26, 0, 5), now), '9 hours ago');
  });

  it('counts calendar days: yesterday, then days, weeks, months and years', () => {
    assert.equal(relativeTime(at(25, 23, 50), at(26, 8, 0)), 'yesterday', '23:50 yesterday at 08:00');
    assert.equal(relativeTime(at(25, 23, 0), at(26, 1, 0)), '2 hours ago', 'within six hours the hours are named');
    assert.equal(relativeTime(at(25, 10, 0), now), 'yesterday');
    assert.equal(relativeTime(at(23, 18, 0), now), '3 days ago');
    assert.equal(relativeTime(at(19, 12, 0), now), 'last week');
    assert.equal(relativeTime(at(5, 12, 0), now), '3 weeks ago');
    assert.equal(relativeTime(at(20, 12, 0, 9), now), 'last month');
    assert.equal(relativeTime(at(1, 12, 0, 6), now), '4 months ago');
    assert.equal(relativeTime(at(1, 12, 0, 9, 2025), now), 'last year');
    assert.equal(relativeTime(at(1, 12, 0, 0, 2023), now), '3 years ago');
  });

  it('counts days across month and year ends', () => {
    assert.equal(calendarDaysBetween(at(31, 23, 0, 11, 2025), at(1, 1, 0, 0, 2026)), 1);
    assert.equal(calendarDaysBetween(at(28, 12, 0, 1), at(1, 12, 0, 2)), 1, '28 February to 1 March 2026');
    assert.equal(relativeTime(at(31, 12, 0, 11, 2025), at(1, 12, 0, 0, 2026)), 'yesterday');
    assert.equal(relativeTime(Number.NaN, now), 'just now');
  });
});
