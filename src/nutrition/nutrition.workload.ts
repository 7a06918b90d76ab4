import { isDeepStrictEqual } from 'node:util';
import { sql } from 'kysely';
import { z } from 'zod';
import type { Db } from '../db/database.js';
import { jsonRequest } from '../kinds/workload-requests.js';
import type { AppClient, DateRange, DayWrite, KindWorkload, ServiceDay, UserIdRange } from '../kinds/workload.js';
import { placeLoggedAt } from './local-date.js';
import { MealLedger } from './meal-ledger.js';

/** A day's content: its items' ids (the app's, which the record carries in rawJson), names and carbs, by id. */
type DayContent = { id: number; name: string; carbs: number }[];

const byId = (items: DayContent): DayContent => items.toSorted((a, b) => a.id - b.id);

const dayListSchema = z.object({ meals: z.array(z.looseObject({ id: z.int(), name: z.string(), carbs: z.number() })) });

const dayRecordSchema = z.looseObject({
  date: z.string(),
  items: z.array(z.looseObject({ name: z.string(), carbs: z.number() })),
  rawJson: z.looseObject({ items: z.array(z.looseObject({ id: z.int() })) }),
});

const storedRecordSchema = z.object({ payload: z.unknown(), createdAt: z.iso.datetime(), receivedAt: z.iso.datetime(), writes: z.int() });
const sandboxStateSchema = z.looseObject({
  athletes: z.record(z.string(), z.looseObject({ nutrition: z.record(z.string(), storedRecordSchema) })),
});

/**
 * Write `n` of a day: item n + 1, at a local time without an offset (the day is the person's own,
 * in their zone), a quarter of an hour apart up to 16 a day.
 */
function mealBody({ date, n }: DayWrite): Record<string, unknown> {
  const hour = String(6 + (n % 16)).padStart(2, '0');
  const minute = String((n * 7) % 60).padStart(2, '0');
  return { name: `Item ${n + 1}`, carbs: 20 + n, protein: 10, fat: 5, kcal: 200 + n, logged_at: `${date}T${hour}:${minute}:00` };
}

/** The record's items joined with their ids, which the app sends in rawJson in the same order (day-record.ts). */
function contentOf(record: z.infer<typeof dayRecordSchema>): DayContent {
  return byId(record.items.map((item, index) => ({ id: record.rawJson.items[index]?.id ?? -1, name: item.name, carbs: item.carbs })));
}

async function appDays(client: AppClient, dates: readonly string[]): Promise<Map<string, unknown>> {
  const days = new Map<string, unknown>();
  for (const date of dates) {
    const response = await client.request(`/api/meals?date=${date}`);
    if (response.status !== 200) throw new Error(`GET /api/meals?date=${date}: ${response.status}`);
    const { meals } = dayListSchema.parse(await response.json());
    if (meals.length > 0) days.set(date, byId(meals.map(({ id, name, carbs }) => ({ id, name, carbs }))));
  }
  return days;
}

function serviceDays(sandboxState: unknown): ServiceDay[] {
  const { athletes } = sandboxStateSchema.parse(sandboxState);
  return Object.entries(athletes).flatMap(([athlete, { nutrition }]) =>
    Object.entries(nutrition).map(([date, stored]) => {
      const record = dayRecordSchema.parse(stored.payload);
      return {
        athlete,
        date,
        record: stored.payload,
        content: contentOf(record),
        createdAt: Date.parse(stored.createdAt),
        receivedAt: Date.parse(stored.receivedAt),
        writes: stored.writes,
      };
    }),
  );
}

/**
 * Write 0 of every day for every person, one item a day, as the import stores it (meals.ts): the
 * time placed in UTC by the app's own rule, the same for every day, so only the date differs.
 */
async function insertImported(db: Db, people: UserIdRange, days: DateRange, now: Date): Promise<void> {
  const { name, carbs, protein, fat, kcal, logged_at } = mealBody({ date: days.first, n: 0 });
  const placement = placeLoggedAt(String(logged_at), 'UTC');
  if (!placement.ok) throw new Error(`${days.first}: ${placement.message}`);
  const timeOfDay = placement.placed.loggedAt.slice(days.first.length);
  const at = now.toISOString();
  await sql`
    insert into meal_items (user_id, name, carbs, protein, fat, kcal, absorption_type, logged_at, local_date, created_at, updated_at)
    select person, ${name}, ${carbs}, ${protein}, ${fat}, ${kcal}, null, to_char(day, 'YYYY-MM-DD') || ${timeOfDay},
      to_char(day, 'YYYY-MM-DD'), ${at}, ${at}
    from generate_series(${people.first}::integer, ${people.last}::integer) as person,
      generate_series(${days.first}::date, ${days.last}::date, interval '1 day') as day
    order by person, day`.execute(db);
}

/** Meal items: one added per write (POST /api/meals), many imported at once (POST /api/meals/batch). */
export const nutritionWorkload: KindWorkload = {
  name: 'nutrition',
  syncKind: 'nutrition',
  scope: 'nutrition:write',
  servicePath: '/api/nutrition',
  write: {
    route: 'POST /api/meals',
    send: (client, date, n) => client.request('/api/meals', jsonRequest('POST', mealBody({ date, n }))),
  },
  bulk: {
    route: 'POST /api/meals/batch',
    // MEALS_BATCH_MAX's default.
    max: 500,
    send: (client, writes) => client.request('/api/meals/batch', jsonRequest('POST', { items: writes.map(mealBody) })),
  },
  appDays,
  serviceDays,
  // A day whose items were all deleted is sent empty (nutrition-sender.ts): as good as none.
  sentRight: (appDay, serviceDay) => isDeepStrictEqual(appDay ?? [], serviceDay ?? []),
  // The day as each of its items arrived: the first item, the first two, and so on.
  recordsWriteByWrite: (record) => {
    const day = dayRecordSchema.parse(record);
    return day.items.map((_, index) => ({ ...day, items: day.items.slice(0, index + 1) }));
  },
  chaosLedger: (person) => new MealLedger(person),
  insertImported,
};
