import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readWorkoutListing } from '../../src/workouts/workout-listing.js';
import { seedProperties } from '../helpers/property-seed.js';

seedProperties();

const read = (value: unknown) => readWorkoutListing(JSON.stringify(value));

describe('reading the workouts listing', () => {
  it('reads every field it knows from an array of workouts', () => {
    const listing = read([
      { name: 'Morning ride', start_date_local: '2026-03-01T07:00:00Z', type: 'Ride', elapsed_time: 3725, distance: 42_195.5 },
      { name: 'Walk', date: '2026-03-02' },
    ]);
    expect(listing).toEqual({
      workouts: [
        { name: 'Morning ride', start: '2026-03-01T07:00:00Z', type: 'Ride', durationS: 3725, distanceM: 42_195.5 },
        { name: 'Walk', start: '2026-03-02' },
      ],
      notes: [],
    });
  });

  it.each(['workouts', 'data', 'items', 'results'])('finds the list an object holds under "%s"', (key) => {
    expect(read({ [key]: [{ name: 'Run' }], total: 1 })).toEqual({ workouts: [{ name: 'Run' }], notes: [] });
  });

  it('finds the list under an unknown key when it is the object’s only array', () => {
    expect(read({ page: 1, sessions: [{ sport: 'Swim', moving_time: 1800 }] }).workouts).toEqual([{ type: 'Swim', durationS: 1800 }]);
  });

  it('reads the other keys of each field', () => {
    const entry = { startTime: '2026-03-01T07:00:00+01:00', activityType: 'Run', durationSecs: 60, distanceMeters: 1000 };
    expect(read([entry]).workouts).toEqual([{ start: '2026-03-01T07:00:00+01:00', type: 'Run', durationS: 60, distanceM: 1000 }]);
  });

  it('takes the first key of a field whose value reads', () => {
    expect(read([{ duration: 'long', elapsed_time: 90 }])).toEqual({ workouts: [{ durationS: 90 }], notes: [] });
  });

  it('says when the answer is not JSON', () => {
    expect(readWorkoutListing('{"workouts": [')).toEqual({
      workouts: [],
      notes: ["The service's answer was not JSON, so no workouts can be shown."],
    });
  });

  it.each([
    ['an object holding no list', { count: 3, next: null }],
    ['an object holding two lists', { planned: [], done: [] }],
    ['a number', 42],
    ['a string', 'workouts'],
    ['null', null],
  ])('says when the answer is %s', (_what, value) => {
    expect(read(value)).toEqual({ workouts: [], notes: ['The answer held no list of workouts.'] });
  });

  it('shows what it can of odd entries and says what it could not read', () => {
    const listing = read([
      { name: 'Partly readable', duration: 'about an hour', distance: 12_000 },
      { name: 42, start_date_local: 'last Tuesday', type: ['Ride'], distance: null },
      { title: 'A name under an unknown key' },
      'Evening run',
      null,
      [1, 2],
    ]);
    expect(listing.workouts).toEqual([{ name: 'Partly readable', distanceM: 12_000 }]);
    expect(listing.notes).toEqual([
      '3 entries were not objects and are not shown.',
      '2 entries hold none of the fields this app reads (name, start time, type, duration, distance) and are not shown.',
      'The name of 1 entry could not be read.',
      'The start time of 1 entry could not be read.',
      'The type of 1 entry could not be read.',
      'The duration of 1 entry could not be read.',
    ]);
  });

  it('speaks of one entry in the singular', () => {
    expect(read([{ name: 'Ride' }, 'x', {}]).notes).toEqual([
      '1 entry was not an object and is not shown.',
      '1 entry holds none of the fields this app reads (name, start time, type, duration, distance) and is not shown.',
    ]);
  });

  it('refuses negative amounts, blank names and starts that are not ISO 8601', () => {
    const listing = read([{ name: '  ', start: '01/03/2026', durationSecs: -5, distance: 10 }]);
    expect(listing.workouts).toEqual([{ distanceM: 10 }]);
    expect(listing.notes).toHaveLength(3);
  });

  it('never throws, whatever JSON value the service answers', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const listing = readWorkoutListing(JSON.stringify(value));
        expect(Array.isArray(listing.workouts) && Array.isArray(listing.notes)).toBe(true);
        for (const workout of listing.workouts) expect(Object.keys(workout).length).toBeGreaterThan(0);
      }),
    );
  });

  it('never throws on entries made of the keys it looks for, with any values', () => {
    const keys = [
      'name',
      'start_date_local',
      'startTime',
      'date',
      'start',
      'type',
      'sport',
      'duration',
      'elapsed_time',
      'distance',
      'distanceMeters',
    ];
    const entry = fc.dictionary(fc.constantFrom(...keys), fc.jsonValue());
    fc.assert(
      fc.property(fc.array(fc.oneof(entry, fc.jsonValue())), (entries) => {
        const listing = read({ workouts: entries });
        expect(listing.workouts.length).toBeLessThanOrEqual(entries.length);
      }),
    );
  });

  it('never throws on any text at all', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.json()), (text) => void readWorkoutListing(text)));
  });
});
