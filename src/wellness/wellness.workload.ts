import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { fieldNames } from '../fields/field-values.js';
import { answerOf, finish, jsonRequest, unacknowledged, WriteCounts } from '../kinds/workload-requests.js';
import type { AppClient, ChaosLedger, KindWorkload, PickNumber, ServiceDay } from '../kinds/workload.js';
import { WELLNESS_MEASUREMENTS } from './wellness.fields.js';
import { wellnessRecord } from './wellness-record.js';
import type { Measurements } from './wellness.schemas.js';

const MEASUREMENT_NAMES = fieldNames(WELLNESS_MEASUREMENTS);

const measurementsSchema = z.partialRecord(z.enum(MEASUREMENT_NAMES), z.number());
const dayListSchema = z.object({ days: z.array(z.looseObject({ date: z.string() })) });
const dayRecordSchema = z.looseObject({ date: z.string(), rawJson: z.looseObject({}) });
const storedRecordSchema = z.object({ payload: z.unknown(), createdAt: z.iso.datetime(), receivedAt: z.iso.datetime(), writes: z.int() });
const sandboxStateSchema = z.looseObject({
  athletes: z.record(z.string(), z.looseObject({ wellness: z.record(z.string(), storedRecordSchema).optional() })),
});

/** The measurements of write `n` to a day: each write's HRV differs, so that each is a change. */
function measurementsOf(n: number): Measurements {
  return { hrv: 30 + (n % 400), restingHr: 50 + (n % 30), sleepSecs: 25_200 + 60 * (n % 120) };
}

/** A day's content: its measurements, those the record names of its own and those in rawJson alike. */
const contentOf = (values: Record<string, unknown>): Measurements => measurementsSchema.parse(pickMeasurements(values));

const pickMeasurements = (values: Record<string, unknown>) =>
  Object.fromEntries(MEASUREMENT_NAMES.flatMap((name) => (values[name] === undefined ? [] : [[name, values[name]]])));

const putDay = (client: AppClient, date: string, measurements: Measurements) =>
  client.request(`/api/wellness/${date}`, jsonRequest('PUT', measurements));

async function appDays(client: AppClient, dates: readonly string[]): Promise<Map<string, unknown>> {
  const days = new Map<string, unknown>();
  for (const date of dates) {
    const response = await client.request(`/api/wellness?from=${date}&to=${date}`);
    if (response.status !== 200) throw new Error(`GET /api/wellness?from=${date}&to=${date}: ${response.status}`);
    for (const day of dayListSchema.parse(await response.json()).days) days.set(day.date, contentOf(day));
  }
  return days;
}

function serviceDays(sandboxState: unknown): ServiceDay[] {
  const { athletes } = sandboxStateSchema.parse(sandboxState);
  return Object.entries(athletes).flatMap(([athlete, { wellness = {} }]) =>
    Object.entries(wellness).map(([date, stored]) => ({
      athlete,
      date,
      record: stored.payload,
      // rawJson holds every measurement entered (wellness-record.ts).
      content: contentOf(dayRecordSchema.parse(stored.payload).rawJson),
      createdAt: Date.parse(stored.createdAt),
      receivedAt: Date.parse(stored.receivedAt),
      writes: stored.writes,
    })),
  );
}

/**
 * One person's wellness days in a chaos run: random records put (an add on a day without one, an
 * edit on a day with one) and days deleted, and the last acknowledged record of each day.
 */
class WellnessLedger extends WriteCounts implements ChaosLedger {
  /** Each day's last acknowledged measurements; null: deleted. */
  private readonly days = new Map<string, Measurements | null>();
  private readonly uncertainDays = new Set<string>();

  constructor(private readonly person: string) {
    super();
  }

  async writeOnce(client: AppClient, dates: readonly string[], pick: PickNumber): Promise<number | undefined> {
    const date = dates[pick(0, dates.length - 1)]!;
    const held = this.days.get(date);
    if (pick(0, 3) === 3 && held) return this.remove(client, date);
    const measurements = Object.fromEntries(
      MEASUREMENT_NAMES.map((name) => [name, pick(WELLNESS_MEASUREMENTS[name].min, WELLNESS_MEASUREMENTS[name].max)]),
    );
    const response = await answerOf(putDay(client, date, measurements));
    if (response?.status === 200) {
      this.acknowledged[held ? 'edit' : 'add'] += 1;
      this.settle(date, measurements);
    } else this.noteUnsettled(date, response);
    return finish(response);
  }

  disagreements(appDays: Map<string, unknown>): string[] {
    const problems: string[] = [];
    for (const [date, measurements] of this.days) {
      if (this.uncertainDays.has(date)) continue;
      const found = appDays.get(date);
      if (isDeepStrictEqual(found ?? null, measurements)) continue;
      const described = (values: unknown) => (values === undefined || values === null ? 'no record' : JSON.stringify(values));
      problems.push(`${this.person} ${date} holds ${described(found)}, acknowledged ${described(measurements)}`);
    }
    for (const date of appDays.keys()) {
      if (!this.days.has(date) && !this.uncertainDays.has(date)) problems.push(`${this.person} ${date} recorded by no write`);
    }
    return problems;
  }

  private async remove(client: AppClient, date: string): Promise<number | undefined> {
    const response = await answerOf(client.request(`/api/wellness/${date}`, { method: 'DELETE' }));
    if (response?.status === 204) {
      this.acknowledged.delete += 1;
      this.settle(date, null);
    } else if (response?.status === 404) {
      // An unacknowledged delete was applied after all.
      this.settle(date, null);
    } else this.noteUnsettled(date, response);
    return finish(response);
  }

  private settle(date: string, measurements: Measurements | null): void {
    this.days.set(date, measurements);
    this.uncertainDays.delete(date);
  }

  private noteUnsettled(date: string, response: Response | undefined): void {
    if (!unacknowledged(response)) return;
    this.countUnacknowledged(response);
    this.uncertainDays.add(date);
  }
}

/** Wellness days: one put whole per write (PUT /api/wellness/:date); no bulk import. */
export const wellnessWorkload: KindWorkload = {
  name: 'wellness',
  syncKind: 'wellness',
  scope: 'health:write',
  servicePath: '/api/wellness',
  write: {
    route: 'PUT /api/wellness/:date',
    send: (client, date, n) => putDay(client, date, measurementsOf(n)),
  },
  appDays,
  serviceDays,
  // A day deleted here stays at the service, which has no delete (wellness-sender.ts).
  sentRight: (appDay, serviceDay) => appDay === undefined || isDeepStrictEqual(appDay, serviceDay),
  // Each write puts the whole day: its record is the one of that write's measurements.
  recordsWriteByWrite: (record, writes) => {
    const { date } = dayRecordSchema.parse(record);
    return Array.from({ length: writes }, (_, n) => wellnessRecord(date, measurementsOf(n)));
  },
  chaosLedger: (person) => new WellnessLedger(person),
};
