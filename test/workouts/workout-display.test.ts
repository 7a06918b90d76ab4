import { describe, expect, it } from 'vitest';
import { dateStyleFor } from '../../src/dates/date-style.js';
import { columnsPresent, displayDuration, displayFetchedAt, displayStart } from '../../src/workouts/workout-display.js';

describe('showing a workout', () => {
  it.each([
    ['an instant in UTC', '2026-07-01T22:30:00Z', 'Thu, 2 Jul 2026, 00:30'],
    ['an instant with an offset', '2026-07-01T08:00:00-04:00', 'Wed, 1 Jul 2026, 14:00'],
    ['a local time without an offset, as given', '2026-07-01T08:00:00', 'Wed, 1 Jul 2026, 08:00'],
    ['a date, as given', '2026-07-01', 'Wed, 1 Jul 2026'],
    ['what is not a time, as it came', 'next Tuesday', 'next Tuesday'],
  ])('shows %s in the person’s zone', (_what, start, shown) => {
    expect(displayStart(start, 'Europe/Berlin', dateStyleFor('en-GB'))).toBe(shown);
  });

  it('writes the start in the person’s locale, on its clock', () => {
    expect(displayStart('2026-07-01T12:00:00Z', 'Europe/Berlin', dateStyleFor('en-US'))).toBe('Wed, Jul 1, 2026, 2:00 PM');
  });

  it.each([
    [0, '0:00:00'],
    [59.6, '0:01:00'],
    [3725, '1:02:05'],
    [36_000, '10:00:00'],
  ])('shows %s seconds as %s', (seconds, shown) => {
    expect(displayDuration(seconds)).toBe(shown);
  });

  it('has a column only for the fields some workout has', () => {
    expect(columnsPresent([{ name: 'Ride' }, { distanceM: 1 }]).map(({ heading }) => heading)).toEqual(['Name', 'Distance']);
  });

  it('says when a list was fetched in the person’s zone: the time alone on their today, else the date too', () => {
    const fetchedAt = new Date('2026-11-25T09:42:00Z');
    expect(displayFetchedAt(fetchedAt, 'Europe/Berlin', new Date('2026-11-25T22:59:00Z'), dateStyleFor('en-GB'))).toBe('10:42');
    // 23:00 UTC is already the next day in Berlin.
    expect(displayFetchedAt(fetchedAt, 'Europe/Berlin', new Date('2026-11-25T23:00:00Z'), dateStyleFor('en-GB'))).toBe(
      'Wed, 25 Nov 2026, 10:42',
    );
    expect(displayFetchedAt(fetchedAt, 'Europe/Berlin', new Date('2026-11-25T22:59:00Z'), dateStyleFor('en-US'))).toBe('10:42 AM');
  });
});
