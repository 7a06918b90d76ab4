import { DateTime } from 'luxon';
import type { DateStyle } from '../dates/date-style.js';
import type { Workout } from './workout-listing.js';

/** The columns of the workouts table, in order, with their headings. */
export const WORKOUT_COLUMNS = [
  { field: 'name', heading: 'Name' },
  { field: 'start', heading: 'Start' },
  { field: 'type', heading: 'Type' },
  { field: 'durationS', heading: 'Duration' },
  { field: 'distanceM', heading: 'Distance' },
] as const satisfies ReadonlyArray<{ field: keyof Workout; heading: string }>;

export type WorkoutRow = Partial<Record<keyof Workout, string>>;

/** Only the columns that at least one workout has a value for. */
export function columnsPresent(workouts: readonly Workout[]) {
  return WORKOUT_COLUMNS.filter(({ field }) => workouts.some((workout) => workout[field] !== undefined));
}

/** A workout as the person reads it: times in their zone and date style, durations as h:mm:ss, distances in km. */
export function displayWorkout(workout: Workout, timezone: string, style: DateStyle): WorkoutRow {
  return {
    name: workout.name,
    start: workout.start === undefined ? undefined : displayStart(workout.start, timezone, style),
    type: workout.type,
    durationS: workout.durationS === undefined ? undefined : displayDuration(workout.durationS),
    distanceM: workout.distanceM === undefined ? undefined : `${(workout.distanceM / 1000).toFixed(2)} km`,
  };
}

/** When a list was fetched, in the person's zone and date style: "10:42" on the day it is for them now, else "Tue, 24 Nov 2026, 10:42". */
export function displayFetchedAt(fetchedAt: Date, timezone: string, now: Date, style: DateStyle): string {
  const at = DateTime.fromJSDate(fetchedAt).setZone(timezone);
  const today = at.hasSame(DateTime.fromJSDate(now).setZone(timezone), 'day');
  return today ? style.time(at) : style.dayAndTime(at);
}

const WITH_OFFSET = /(?:Z|[+-]\d{2}(?::?\d{2})?)$/i;

/**
 * An instant (with `Z` or an offset) in the person's zone; a date, or a local time without an
 * offset, as given: it names no instant to convert. What cannot be read is shown as it came.
 */
export function displayStart(start: string, timezone: string, style: DateStyle): string {
  if (!start.includes('T')) return DateTime.fromISO(start).isValid ? style.day(start) : start;
  const time = WITH_OFFSET.test(start) ? DateTime.fromISO(start).setZone(timezone) : DateTime.fromISO(start, { zone: 'UTC' });
  return time.isValid ? style.dayAndTime(time) : start;
}

export function displayDuration(seconds: number): string {
  const whole = Math.round(seconds);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${Math.floor(whole / 3600)}:${two(Math.floor((whole % 3600) / 60))}:${two(whole % 60)}`;
}
