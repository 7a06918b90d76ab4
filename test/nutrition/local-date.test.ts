import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dateStyleFor } from '../../src/dates/date-style.js';
import { describeLoggedAt, loggedAtInputSchema, placeLoggedAt, type PlacedTime } from '../../src/nutrition/local-date.js';
import { seedProperties } from '../helpers/property-seed.js';

seedProperties();

// The expected values below come from Intl.DateTimeFormat and plain arithmetic, never from luxon,
// so the tests check placeLoggedAt against an independent computation.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const FIRST_INSTANT = Date.UTC(1990, 0, 1);
const LAST_INSTANT = Date.UTC(2038, 0, 1) - 1;

const AWKWARD_ZONES = [
  'Asia/Kathmandu', // +05:45
  'Pacific/Kiritimati', // +14:00
  'Pacific/Marquesas', // -09:30
  'Australia/Lord_Howe', // 30-minute DST
  'America/St_Johns', // -03:30 with DST
  'Pacific/Chatham', // +12:45 with DST
  'Antarctica/Troll', // 2-hour DST
  'Europe/Dublin', // negative DST in the tz database
  'Pacific/Apia', // skipped 2011-12-30; its offset today is far from its offsets before 2011
  'Asia/Almaty', // +05:00 today, +06:00/+07:00 with DST in the 1990s
  'Europe/Berlin',
  'America/New_York',
];
const ALL_ZONES = Intl.supportedValuesOf('timeZone');

// --- The second computation: Intl wall clocks and offsets --------------------------------------

const wallClockFormats = new Map<string, Intl.DateTimeFormat>();

function wallClockFormat(zone: string): Intl.DateTimeFormat {
  let format = wallClockFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    wallClockFormats.set(zone, format);
  }
  return format;
}

function floorTo(value: number, unit: number): number {
  return value - (((value % unit) + unit) % unit);
}

/** The wall clock in the zone at that instant, read as if it were UTC, to the second. */
function wallClockAsUtc(zone: string, instant: number): number {
  const parts = Object.fromEntries(
    wallClockFormat(zone)
      .formatToParts(instant)
      .map((part) => [part.type, Number(part.value)] as const),
  );
  return Date.UTC(parts.year!, parts.month! - 1, parts.day, parts.hour, parts.minute, parts.second);
}

function offsetMinutesAt(zone: string, instant: number): number {
  return (wallClockAsUtc(zone, instant) - floorTo(instant, 1000)) / MINUTE;
}

/**
 * The instant a wall time (read as UTC) names in the zone: of the instants that show it, the
 * earliest; if none does (a DST gap), the one at the offset before the gap, which shows the wall
 * time moved forward by the gap.
 */
function instantOfWallTime(zone: string, wallAsUtc: number): number {
  const offsetBefore = offsetMinutesAt(zone, wallAsUtc - 26 * HOUR);
  const offsetAfter = offsetMinutesAt(zone, wallAsUtc + 26 * HOUR);
  const showingIt = [offsetBefore, offsetAfter]
    .map((offset) => wallAsUtc - offset * MINUTE)
    .filter((candidate) => wallClockAsUtc(zone, candidate) === floorTo(wallAsUtc, 1000));
  return showingIt.length > 0 ? Math.min(...showingIt) : wallAsUtc - offsetBefore * MINUTE;
}

/** Instants where the zone's offset changes during the year, to the minute. */
const transitionsCache = new Map<string, number[]>();

function offsetTransitions(zone: string, year: number): number[] {
  const key = `${zone} ${year}`;
  let transitions = transitionsCache.get(key);
  if (!transitions) {
    transitions = [];
    const end = Date.UTC(year + 1, 0, 1);
    for (let from = Date.UTC(year, 0, 1); from < end; from += 7 * DAY) {
      const to = from + 7 * DAY;
      if (offsetMinutesAt(zone, from) !== offsetMinutesAt(zone, to)) transitions.push(firstInstantWithOffsetOf(zone, from, to));
    }
    transitionsCache.set(key, transitions);
  }
  return transitions;
}

function firstInstantWithOffsetOf(zone: string, before: number, after: number): number {
  const offsetAfter = offsetMinutesAt(zone, after);
  let [low, high] = [before, after];
  while (high - low > MINUTE) {
    const middle = low + floorTo((high - low) / 2, MINUTE);
    if (offsetMinutesAt(zone, middle) === offsetAfter) high = middle;
    else low = middle;
  }
  return high;
}

// --- Spelling times the way the API receives them and the way they go out ----------------------

/** `yyyy-MM-ddTHH:mm:ss[.SSS]` of a wall time read as UTC: seconds always, milliseconds when not zero. */
function wallText(wallAsUtc: number): string {
  const iso = new Date(wallAsUtc).toISOString();
  return wallAsUtc % 1000 === 0 ? iso.slice(0, 19) : iso.slice(0, 23);
}

/** Other spellings the schema accepts for the same time: `.000`, `.5` for `.500`, no seconds (wall times only). */
type Spelling = 'canonical' | 'three-digit-millis' | 'trimmed-millis' | 'no-seconds-when-zero';

function spell(wallAsUtc: number, spelling: Spelling): string {
  const iso = new Date(wallAsUtc).toISOString();
  switch (spelling) {
    case 'canonical':
      return wallText(wallAsUtc);
    case 'three-digit-millis':
      return iso.slice(0, 23);
    case 'trimmed-millis':
      return iso.slice(0, 23).replace(/\.?0+$/, '');
    case 'no-seconds-when-zero':
      return wallAsUtc % MINUTE === 0 ? iso.slice(0, 16) : wallText(wallAsUtc);
  }
}

function offsetText(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const minutes = Math.abs(offsetMinutes);
  return `${sign}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

function placedAtOffset(instant: number, offsetMinutes: number): PlacedTime {
  const wall = wallText(instant + offsetMinutes * MINUTE);
  return { loggedAt: wall + offsetText(offsetMinutes), localDate: wall.slice(0, 10) };
}

function placedInZone(instant: number, zone: string): PlacedTime {
  return placedAtOffset(instant, offsetMinutesAt(zone, instant));
}

// --- Arbitraries -------------------------------------------------------------------------------

const zones = fc.oneof(fc.constantFrom(...AWKWARD_ZONES), fc.constantFrom(...ALL_ZONES));
const anyInstant = fc.integer({ min: FIRST_INSTANT, max: LAST_INSTANT });
const years = fc.integer({ min: 1990, max: 2037 });

function instantsNearOffsetChanges(zone: string): fc.Arbitrary<number> {
  return years.chain((year) => {
    const transitions = offsetTransitions(zone, year);
    if (transitions.length === 0) return anyInstant;
    return fc
      .tuple(fc.constantFrom(...transitions), fc.integer({ min: -3 * HOUR, max: 3 * HOUR }))
      .map(([transition, shift]) => transition + shift);
  });
}

function instantsNearLocalMidnight(zone: string): fc.Arbitrary<number> {
  return fc.tuple(anyInstant, fc.integer({ min: -2 * MINUTE, max: 2 * MINUTE })).map(([instant, shift]) => {
    const midnight = instantOfWallTime(zone, floorTo(instant + offsetMinutesAt(zone, instant) * MINUTE, DAY));
    return midnight + shift;
  });
}

/** Whole minutes and whole seconds are common in real input, and take the no-milliseconds path. */
function sometimesRounded(instants: fc.Arbitrary<number>): fc.Arbitrary<number> {
  return fc.tuple(instants, fc.constantFrom(1, 1000, MINUTE)).map(([instant, unit]) => floorTo(instant, unit));
}

const zonedInstants = zones.chain((zone) =>
  sometimesRounded(
    fc.oneof(
      { arbitrary: instantsNearOffsetChanges(zone), weight: 2 },
      { arbitrary: instantsNearLocalMidnight(zone), weight: 1 },
      { arbitrary: anyInstant, weight: 1 },
    ),
  ).map((instant) => ({ zone, instant })),
);

const inputSpellings = fc.constantFrom<Spelling>('canonical', 'three-digit-millis', 'trimmed-millis');

const offsetsMinutes = fc.oneof(
  fc.constantFrom(5 * 60 + 45, 14 * 60, -(9 * 60 + 30), 0, -12 * 60),
  fc.integer({ min: -12 * 4, max: 14 * 4 }).map((quarterHours) => quarterHours * 15),
);

interface Case {
  zone: string;
  input: string;
  instant: number;
  expected: PlacedTime;
}

const utcCases: fc.Arbitrary<Case> = fc.tuple(zonedInstants, inputSpellings).map(([{ zone, instant }, spelling]) => ({
  zone,
  input: `${spell(instant, spelling)}Z`,
  instant,
  expected: placedInZone(instant, zone),
}));

const offsetCases: fc.Arbitrary<Case> = fc
  .tuple(zonedInstants, offsetsMinutes, inputSpellings)
  .map(([{ zone, instant }, offset, spelling]) => ({
    zone,
    input: spell(instant + offset * MINUTE, spelling) + offsetText(offset),
    instant,
    expected: placedAtOffset(instant, offset),
  }));

/**
 * Wall times taken from an instant at its own offset, or at the offset on either side of a
 * nearby change: near a change, the latter land in DST gaps and in repeated hours.
 */
const wallCases: fc.Arbitrary<Case> = fc
  .tuple(
    zonedInstants,
    fc.constantFrom('own offset', 'offset a day before', 'offset a day after'),
    fc.constantFrom<Spelling>('canonical', 'three-digit-millis', 'trimmed-millis', 'no-seconds-when-zero'),
  )
  .map(([{ zone, instant }, readAt, spelling]) => {
    const offsetInstant = { 'own offset': instant, 'offset a day before': instant - DAY, 'offset a day after': instant + DAY }[readAt];
    const wallAsUtc = instant + offsetMinutesAt(zone, offsetInstant) * MINUTE;
    const placedInstant = instantOfWallTime(zone, wallAsUtc);
    return { zone, input: spell(wallAsUtc, spelling), instant: placedInstant, expected: placedInZone(placedInstant, zone) };
  });

/** The placed time of an input that must be placeable. */
function placed(input: string, zone: string): PlacedTime {
  const placement = placeLoggedAt(input, zone);
  if (!placement.ok) throw new Error(`${input} in ${zone} was refused: ${placement.message}`);
  return placement.placed;
}

/** Places the input as the API would: only after the schema has accepted it. */
function place({ input, zone }: Case): PlacedTime {
  expect(loggedAtInputSchema.safeParse(input).success, `schema accepts ${input}`).toBe(true);
  return placed(input, zone);
}

const RUNS = { numRuns: 1000 };

// --- Specification -----------------------------------------------------------------------------

describe('the test process', () => {
  it('runs in Pacific/Kiritimati (+14:00), so server-local time cannot pass for UTC or the user zone', () => {
    // Not new Date(0): in 1970 Kiritimati was at -10:40.
    expect(new Date(Date.UTC(2026, 0, 1)).getTimezoneOffset()).toBe(-840);
  });
});

describe('placeLoggedAt: properties against Intl', () => {
  it('a time in UTC keeps its instant and goes out at the user zone offset of that instant, on that local date', () => {
    fc.assert(
      fc.property(utcCases, (c) => {
        const placed = place(c);
        expect(Date.parse(placed.loggedAt)).toBe(c.instant);
        expect(placed).toEqual(c.expected);
      }),
      RUNS,
    );
  });

  it('a time with an offset keeps its instant and that offset, and belongs to the date at that offset', () => {
    fc.assert(
      fc.property(offsetCases, (c) => {
        const placed = place(c);
        expect(Date.parse(placed.loggedAt)).toBe(c.instant);
        expect(placed.loggedAt.slice(-6)).toBe(c.input.slice(-6));
        expect(placed).toEqual(c.expected);
      }),
      RUNS,
    );
  });

  it('a time without an offset is wall time in the user zone: a gap moves it forward, a repeat takes the earlier instant', () => {
    fc.assert(
      fc.property(wallCases, (c) => {
        expect(place(c)).toEqual(c.expected);
      }),
      RUNS,
    );
  });

  it('logged_at has seconds always, milliseconds only when not zero, an offset and never Z', () => {
    fc.assert(
      fc.property(fc.oneof(utcCases, offsetCases, wallCases), (c) => {
        const { loggedAt } = place(c);
        expect(loggedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?[+-]\d{2}:\d{2}$/);
        expect(loggedAt.includes('.')).toBe(c.instant % 1000 !== 0);
      }),
      RUNS,
    );
  });
});

describe('placeLoggedAt: examples', () => {
  it('moves a wall time in the Berlin spring-forward gap forward by the gap', () => {
    expect(placed('2026-03-29T02:30:00', 'Europe/Berlin')).toEqual({
      loggedAt: '2026-03-29T03:30:00+02:00',
      localDate: '2026-03-29',
    });
  });

  it('takes the earlier of the two Berlin fall-back 02:30s (summer time)', () => {
    expect(placed('2026-10-25T02:30:00', 'Europe/Berlin').loggedAt).toBe('2026-10-25T02:30:00+02:00');
  });

  it('takes the earlier of the two New York fall-back 01:30s (daylight time)', () => {
    expect(placed('2026-11-01T01:30', 'America/New_York').loggedAt).toBe('2026-11-01T01:30:00-04:00');
  });

  it('keeps the wall time of an Apia item a day after a DST change, whatever its offset is today', () => {
    expect(placed('2010-09-26T12:00:00', 'Pacific/Apia').loggedAt).toBe('2010-09-26T12:00:00-10:00');
  });

  it('places an Almaty wall time just before its 2002 DST change at +06:00, though Almaty is +05:00 today', () => {
    expect(placed('2002-03-31T01:59:59.999', 'Asia/Almaty').loggedAt).toBe('2002-03-31T01:59:59.999+06:00');
  });

  it('moves a wall time on the day Apia skipped (2011-12-30) to the next day', () => {
    expect(placed('2011-12-30T12:00:00', 'Pacific/Apia')).toEqual({
      loggedAt: '2011-12-31T12:00:00+14:00',
      localDate: '2011-12-31',
    });
  });

  it('converts a UTC time to Kathmandu at +05:45, on the next day there', () => {
    expect(placed('2026-11-21T20:00:00Z', 'Asia/Kathmandu')).toEqual({
      loggedAt: '2026-11-22T01:45:00+05:45',
      localDate: '2026-11-22',
    });
  });

  it('keeps +14:00 and -09:30 and their dates, whatever the user zone', () => {
    expect(placed('2026-11-21T00:30:00+14:00', 'America/New_York')).toEqual({
      loggedAt: '2026-11-21T00:30:00+14:00',
      localDate: '2026-11-21',
    });
    expect(placed('2026-11-21T23:30:00-09:30', 'Asia/Tokyo')).toEqual({
      loggedAt: '2026-11-21T23:30:00-09:30',
      localDate: '2026-11-21',
    });
  });

  it('keeps +00:00 as +00:00 and never turns it into Z', () => {
    expect(placed('2026-11-21T08:30:00+00:00', 'Europe/London').loggedAt).toBe('2026-11-21T08:30:00+00:00');
    expect(placed('2026-01-21T08:30:00Z', 'Europe/London').loggedAt).toBe('2026-01-21T08:30:00+00:00');
  });

  it('puts 23:59:59.999 on its own day and 00:00:00 on the next, with milliseconds only when not zero', () => {
    expect(placed('2026-11-21T23:59:59.999', 'Europe/Berlin')).toEqual({
      loggedAt: '2026-11-21T23:59:59.999+01:00',
      localDate: '2026-11-21',
    });
    expect(placed('2026-11-22T00:00:00.000', 'Europe/Berlin')).toEqual({
      loggedAt: '2026-11-22T00:00:00+01:00',
      localDate: '2026-11-22',
    });
  });

  it('puts a UTC midnight on the previous day in New York', () => {
    expect(placed('2026-11-22T00:00:00Z', 'America/New_York').localDate).toBe('2026-11-21');
  });
});

describe('placeLoggedAt: refusals', () => {
  it('refuses a time whose local date or instant is outside 1900-01-01 to 2100-12-31', () => {
    for (const [input, zone] of [
      ['9999-12-31T23:30:00Z', 'Europe/Berlin'], // would be +010000-01-01
      ['0000-01-01T00:00:00Z', 'America/New_York'], // would be -000001-12-31
      ['2100-12-31T23:30:00Z', 'Europe/Berlin'], // local date 2101-01-01
      ['1900-01-01T00:30:00+01:00', 'UTC'], // local date 1900-01-01, instant 1899-12-31T23:30:00Z
    ] as const) {
      expect(placeLoggedAt(input, zone), `${input} in ${zone}`).toMatchObject({ ok: false, reason: 'outside_supported_dates' });
    }
  });

  it('refuses a time the user zone had an offset with seconds at, naming that offset, rather than moving the instant', () => {
    expect(placeLoggedAt('1970-06-01T12:00:00Z', 'Africa/Monrovia')).toEqual({
      ok: false,
      reason: 'offset_with_seconds',
      message: 'is at a time when Africa/Monrovia was at -00:44:30, which cannot be sent as ±hh:mm; give the time with an explicit offset',
    });
    expect(placeLoggedAt('1950-06-01T12:00', 'Pacific/Niue')).toMatchObject({ ok: false, reason: 'offset_with_seconds' });
    expect(placed('1970-06-01T12:00:00-00:44', 'Africa/Monrovia').loggedAt).toBe('1970-06-01T12:00:00-00:44');
  });
});

describe('loggedAtInputSchema', () => {
  it('accepts a time with an offset, in Z, or without an offset', () => {
    for (const value of ['2026-11-21T08:30:00+05:45', '2026-11-21T08:30:00.123Z', '2026-11-21T08:30:00', '2026-11-21T08:30']) {
      expect(loggedAtInputSchema.safeParse(value).success, value).toBe(true);
    }
  });

  it('refuses a date that does not exist', () => {
    expect(loggedAtInputSchema.safeParse('2026-02-30T08:30:00Z').success).toBe(false);
  });

  it('refuses more than millisecond precision, which would change the instant', () => {
    expect(loggedAtInputSchema.safeParse('2026-11-21T08:30:00.1234Z').success).toBe(false);
  });

  it('refuses a date without a time', () => {
    expect(loggedAtInputSchema.safeParse('2026-11-21').success).toBe(false);
  });

  it('accepts offsets from -14:00 to +14:00, the widest any place on Earth uses', () => {
    for (const value of ['2026-11-21T08:30:00+14:00', '2026-11-21T08:30:00-14:00', '2026-11-21T08:30:00-12:00']) {
      expect(loggedAtInputSchema.safeParse(value).success, value).toBe(true);
    }
  });

  it('refuses an offset beyond ±14:00, which no place uses and the service may not take', () => {
    for (const value of ['2026-11-21T08:30:00+14:01', '2026-11-21T08:30:00-14:01', '2026-11-21T08:30:00+23:59']) {
      const parsed = loggedAtInputSchema.safeParse(value);
      expect(parsed.success, value).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe('must have an offset between -14:00 and +14:00');
    }
  });
});

describe('describeLoggedAt', () => {
  it.each([
    ['2026-11-23T23:30:00-05:00', 'Europe/Berlin', '23:30 at UTC−05:00, 05:30 on 24 Nov your time'],
    ['2026-11-23T08:00:00+05:45', 'Europe/Berlin', '08:00 at UTC+05:45, 03:15 your time'],
    ['2026-11-23T08:00:00+01:00', 'Europe/Berlin', '08:00 at UTC+01:00'],
    ['2026-07-01T08:00:00+02:00', 'Europe/Berlin', '08:00 at UTC+02:00'],
    ['2026-07-01T08:00:00+01:00', 'Europe/Berlin', '08:00 at UTC+01:00, 09:00 your time'],
  ])('shows %s to a user in %s as “%s”', (loggedAt, zone, shown) => {
    expect(describeLoggedAt(loggedAt, zone, dateStyleFor('en-GB'))).toBe(shown);
  });

  it('writes the times and the day on the clock and in the words of the person’s locale', () => {
    expect(describeLoggedAt('2026-11-23T23:30:00-05:00', 'Europe/Berlin', dateStyleFor('en-US'))).toBe(
      '11:30 PM at UTC−05:00, 5:30 AM on Nov 24 your time',
    );
    expect(describeLoggedAt('2026-11-23T23:30:00-05:00', 'Europe/Berlin', dateStyleFor('de-DE'))).toBe(
      '23:30 at UTC−05:00, 05:30 on 24. Nov. your time',
    );
  });
});
