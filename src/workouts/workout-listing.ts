import { z } from 'zod';

/**
 * Where the workouts listing's parts are looked for. The document shows neither the listing's
 * response shape (§4.3) nor the fields of a workout (§2): these keys are an assumption, the ones
 * training platforms commonly use. A partner who learns the real shape changes them here.
 */
export const LISTING_KEYS = {
  /** An object answer holds its list under one of these (else under its only array). */
  list: ['workouts', 'data', 'items', 'results', 'activities'],
  /** Each field of a workout, by the keys it may come under; the first that reads wins. */
  fields: {
    name: ['name'],
    start: ['start_date_local', 'startTime', 'start_time', 'start_date', 'date', 'start'],
    type: ['type', 'sport', 'activityType'],
    durationS: ['duration', 'elapsed_time', 'moving_time', 'durationSecs'],
    distanceM: ['distance', 'distanceMeters'],
  },
} as const;

const text = z.string().trim().min(1);
const amount = z.number().nonnegative();

/** What each field must be to be shown. A start is an ISO 8601 date-time (with or without an offset) or a date. */
const FIELD_SCHEMAS = {
  name: text,
  start: z.union([z.iso.datetime({ offset: true, local: true }), z.iso.date()]),
  type: text,
  durationS: amount,
  distanceM: amount,
} as const;

type Field = keyof typeof FIELD_SCHEMAS;

/** One workout as far as it could be read: only the fields that were present and readable. */
export type Workout = { [F in Field]?: z.infer<(typeof FIELD_SCHEMAS)[F]> };

export interface WorkoutListing {
  workouts: Workout[];
  /** What could not be read, in plain words, for the person to see. */
  notes: string[];
}

/** A listing as this module reads it, for reading one back from the store. */
export const workoutListingSchema = z.object({
  workouts: z.array(z.object(FIELD_SCHEMAS).partial()),
  notes: z.array(z.string()),
}) satisfies z.ZodType<WorkoutListing>;

const FIELD_WORDS: Record<Field, string> = {
  name: 'name',
  start: 'start time',
  type: 'type',
  durationS: 'duration',
  distanceM: 'distance',
};

const FIELDS = Object.keys(FIELD_SCHEMAS) as Field[];
const entrySchema = z.record(z.string(), z.unknown());
const listSchema = z.array(z.unknown());

/**
 * Reads the listing's body leniently: whatever it is, this never throws. It takes an array, or
 * an object holding one, and from each entry every field it can read, independently; what it
 * could not read becomes a note instead of an error.
 */
export function readWorkoutListing(body: string): WorkoutListing {
  const parsed = parseJson(body);
  if (!parsed.ok) return { workouts: [], notes: ["The service's answer was not JSON, so no workouts can be shown."] };
  const entries = listIn(parsed.value);
  if (entries === undefined) return { workouts: [], notes: ['The answer held no list of workouts.'] };

  const workouts: Workout[] = [];
  let notObjects = 0;
  let nothingReadable = 0;
  const unreadable: Record<Field, number> = { name: 0, start: 0, type: 0, durationS: 0, distanceM: 0 };
  for (const entry of entries) {
    const object = entrySchema.safeParse(entry);
    if (!object.success) {
      notObjects += 1;
      continue;
    }
    const read = readEntry(object.data);
    for (const field of read.unreadable) unreadable[field] += 1;
    if (Object.keys(read.workout).length === 0) nothingReadable += 1;
    else workouts.push(read.workout);
  }

  const fieldNames = FIELDS.map((field) => FIELD_WORDS[field]).join(', ');
  const notes = [
    notObjects > 0 && `${count(notObjects, 'entry was not an object and is', 'entries were not objects and are')} not shown.`,
    nothingReadable > 0 &&
      `${count(nothingReadable, 'entry holds', 'entries hold')} none of the fields this app reads (${fieldNames}) and ${nothingReadable === 1 ? 'is' : 'are'} not shown.`,
    ...FIELDS.map(
      (field) => unreadable[field] > 0 && `The ${FIELD_WORDS[field]} of ${count(unreadable[field], 'entry', 'entries')} could not be read.`,
    ),
  ].filter((note): note is string => typeof note === 'string');
  return { workouts, notes };
}

/** JSON.parse as a value: never throws. */
export function parseJson(body: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch {
    return { ok: false };
  }
}

/** The array itself, or the one an object holds under a known key, else under its only array. */
function listIn(value: unknown): unknown[] | undefined {
  const list = listSchema.safeParse(value);
  if (list.success) return list.data;
  const object = entrySchema.safeParse(value);
  if (!object.success) return undefined;
  const known = LISTING_KEYS.list.find((key) => Object.hasOwn(object.data, key) && listSchema.safeParse(object.data[key]).success);
  if (known !== undefined) return listSchema.parse(object.data[known]);
  const arrays = Object.values(object.data).filter((inner) => listSchema.safeParse(inner).success);
  return arrays.length === 1 ? listSchema.parse(arrays[0]) : undefined;
}

/** Each field from the first of its keys whose value reads; a field whose keys are present but none reads is unreadable. */
function readEntry(entry: Record<string, unknown>): { workout: Workout; unreadable: Field[] } {
  const workout: Workout = {};
  const unreadable: Field[] = [];
  for (const field of FIELDS) {
    const present = LISTING_KEYS.fields[field].filter((key) => Object.hasOwn(entry, key) && entry[key] !== null);
    const value = present.map((key) => FIELD_SCHEMAS[field].safeParse(entry[key])).find((result) => result.success)?.data;
    if (value !== undefined) Object.assign(workout, { [field]: value });
    else if (present.length > 0) unreadable.push(field);
  }
  return { workout, unreadable };
}

/** "1 entry was", "3 entries were": a count with the words that agree with it. */
function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
