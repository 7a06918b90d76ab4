import { lockSignedInUser } from '../accounts/user.repository.js';
import type { User } from '../accounts/user.table.js';
import { laterThanRecordable } from '../dates/latest-date.js';
import type { Db } from '../db/database.js';
import { columnChangesOf, columnsOf, valuesOfRow } from '../fields/field-values.js';
import type { HistoryHint } from '../sync/hint.js';
import { markDirty, markHistoryDirty, type OutboxKey } from '../sync/outbox.js';
import { placeLoggedAt, type PlacedTime } from './local-date.js';
import {
  countMealsOfDay,
  countMealsOfDays,
  deleteMeal,
  findMeal,
  insertMeal,
  insertMeals,
  mealsOfDay,
  updateMeal,
} from './meal.repository.js';
import { MEAL_AMOUNTS, type Amounts } from './meal.fields.js';
import type { MealChanges, MealInput, MealLimits } from './meal.schemas.js';
import type { MealItem, NewMealItem } from './meal.table.js';

/** A meal item as the API shows it: its local date, and logged_at exactly as it will be sent. */
export type MealView = {
  id: number;
  name: string;
  carbs: number;
  absorptionType?: string;
  logged_at: string;
  date: string;
} & Amounts;

type DayFull = { ok: false; reason: 'day_full'; message: string };

/** A field the schema accepted but the domain cannot take (a time that cannot be placed); `message` follows its name. */
type InvalidField = { ok: false; reason: 'invalid_field'; field: 'logged_at'; message: string };

export type MealOutcome = { ok: true; meal: MealView } | { ok: false; reason: 'not_found' } | DayFull | InvalidField;

/** An import: all its items stored, or none; `index` is the refused item's place in the list. */
export type ImportOutcome = { ok: true; meals: MealView[]; days: string[] } | DayFull | (InvalidField & { index: number });

export interface MealsDependencies {
  db: Db;
  limits: MealLimits;
  clock: () => Date;
  /** Told after commit that an import added to the person's history. */
  historyAdded: HistoryHint;
}

/**
 * Logging meals: every write changes the items and marks their local day(s) dirty in one
 * transaction; the workers find them there. A move to another day marks both days. An import is
 * history (sent after people's changes of now); everything else is a change of now. Each
 * transaction first locks the user, so a person's concurrent writes cannot both pass a day's limit.
 */
export function createMeals({ db, limits, clock, historyAdded }: MealsDependencies) {
  const nutritionDay = (user: User, date: string): OutboxKey => ({ userId: user.id, kind: 'nutrition', subject: date });
  const dayFull = (date: string): DayFull => ({
    ok: false,
    reason: 'day_full',
    message: `${date} already has ${limits.maxItemsPerDay} items, the most a day can hold`,
  });

  const dayOverfull = (date: string, held: number, adding: number): DayFull => ({
    ok: false,
    reason: 'day_full',
    message: `${date} would hold ${held + adding} items with this import, more than the ${limits.maxItemsPerDay} a day can hold`,
  });

  return {
    async list(user: User, date: string): Promise<MealView[]> {
      return (await mealsOfDay(db, user.id, date)).map(mealView);
    },

    async add(user: User, input: MealInput): Promise<MealOutcome> {
      const now = clock();
      const placement = placeMeal(input.logged_at, user, now);
      if (!placement.ok) return placement;
      const { placed } = placement;
      const meal = await db.transaction().execute(async (trx) => {
        await lockSignedInUser(trx, user.id);
        if ((await countMealsOfDay(trx, user.id, placed.localDate)) >= limits.maxItemsPerDay) return undefined;
        const item = await insertMeal(trx, newMealItem(user, input, placed, now));
        await markDirty(trx, nutritionDay(user, placed.localDate), now);
        return item;
      });
      if (!meal) return dayFull(placed.localDate);
      return { ok: true, meal: mealView(meal) };
    },

    /**
     * Stores every item or none, in one transaction: one insert, and each touched day counted and
     * marked dirty once, as history, however many of the items it holds.
     */
    async importMany(user: User, inputs: MealInput[]): Promise<ImportOutcome> {
      const now = clock();
      const placed: PlacedTime[] = [];
      for (const [index, input] of inputs.entries()) {
        const placement = placeMeal(input.logged_at, user, now);
        if (!placement.ok) return { ...placement, index };
        placed.push(placement.placed);
      }
      const added = countByDay(placed.map((time) => time.localDate));
      const days = [...added.keys()].sort();
      let historyBegan = false;
      const outcome = await db.transaction().execute(async (trx) => {
        await lockSignedInUser(trx, user.id);
        const held = await countMealsOfDays(trx, user.id, days);
        const overfull = days.find((day) => (held.get(day) ?? 0) + (added.get(day) ?? 0) > limits.maxItemsPerDay);
        if (overfull !== undefined) return dayOverfull(overfull, held.get(overfull) ?? 0, added.get(overfull) ?? 0);
        const items = await insertMeals(
          trx,
          inputs.map((input, index) => newMealItem(user, input, placed[index]!, now)),
        );
        historyBegan = await markHistoryDirty(
          trx,
          user.id,
          days.map((day) => ({ kind: 'nutrition' as const, subject: day })),
          now,
        );
        return { ok: true as const, meals: items.map(mealView), days };
      });
      if (outcome.ok) await historyAdded(user.id, { began: historyBegan });
      return outcome;
    },

    async change(user: User, id: number, changes: MealChanges): Promise<MealOutcome> {
      const now = clock();
      const placement = changes.logged_at === undefined ? undefined : placeMeal(changes.logged_at, user, now);
      if (placement && !placement.ok) return placement;
      const placed = placement?.placed;
      const outcome = await db.transaction().execute(async (trx) => {
        await lockSignedInUser(trx, user.id);
        const before = await findMeal(trx, user.id, id);
        if (!before) return { ok: false as const, reason: 'not_found' as const };
        const date = placed?.localDate ?? before.local_date;
        if (date !== before.local_date && (await countMealsOfDay(trx, user.id, date)) >= limits.maxItemsPerDay) {
          return dayFull(date);
        }
        const after = await updateMeal(trx, user.id, id, {
          ...(changes.name !== undefined && { name: changes.name }),
          ...(changes.carbs !== undefined && { carbs: changes.carbs }),
          ...columnChangesOf(MEAL_AMOUNTS, changes),
          ...(changes.absorptionType !== undefined && { absorption_type: changes.absorptionType }),
          ...(placed && { logged_at: placed.loggedAt, local_date: placed.localDate }),
          updated_at: now.toISOString(),
        });
        for (const day of new Set([before.local_date, after.local_date])) await markDirty(trx, nutritionDay(user, day), now);
        return { ok: true as const, meal: after };
      });
      if (!outcome.ok) return outcome;
      return { ok: true, meal: mealView(outcome.meal) };
    },

    async remove(user: User, id: number): Promise<MealOutcome> {
      const now = clock();
      const removed = await db.transaction().execute(async (trx) => {
        await lockSignedInUser(trx, user.id);
        const item = await findMeal(trx, user.id, id);
        if (!item) return undefined;
        await deleteMeal(trx, user.id, id);
        await markDirty(trx, nutritionDay(user, item.local_date), now);
        return item;
      });
      if (!removed) return { ok: false, reason: 'not_found' };
      return { ok: true, meal: mealView(removed) };
    },
  };
}

export type Meals = ReturnType<typeof createMeals>;

/** Where a meal's time puts it (local-date.ts), on a day the person may record: not after their tomorrow. */
function placeMeal(loggedAt: string, user: User, now: Date): { ok: true; placed: PlacedTime } | InvalidField {
  const placement = placeLoggedAt(loggedAt, user.timezone);
  const refused = (message: string): InvalidField => ({ ok: false, reason: 'invalid_field', field: 'logged_at', message });
  if (!placement.ok) return refused(placement.message);
  const tooLate = laterThanRecordable(placement.placed.localDate, now, user.timezone, 'a meal');
  return tooLate ? refused(tooLate) : placement;
}

function newMealItem(user: User, input: MealInput, placed: PlacedTime, now: Date): NewMealItem {
  return {
    user_id: user.id,
    name: input.name,
    carbs: input.carbs,
    ...columnsOf(MEAL_AMOUNTS, input),
    absorption_type: input.absorptionType ?? null,
    logged_at: placed.loggedAt,
    local_date: placed.localDate,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  };
}

function countByDay(dates: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const date of dates) counts.set(date, (counts.get(date) ?? 0) + 1);
  return counts;
}

export function mealView(item: MealItem): MealView {
  return {
    id: item.id,
    name: item.name,
    carbs: item.carbs,
    ...valuesOfRow(MEAL_AMOUNTS, item),
    ...(item.absorption_type !== null && { absorptionType: item.absorption_type }),
    logged_at: item.logged_at,
    date: item.local_date,
  };
}
