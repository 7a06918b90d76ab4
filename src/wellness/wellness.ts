import { lockSignedInUser } from '../accounts/user.repository.js';
import type { User } from '../accounts/user.table.js';
import { laterThanRecordable } from '../dates/latest-date.js';
import type { Db } from '../db/database.js';
import { columnsOf, fieldNames, valuesOfRow } from '../fields/field-values.js';
import { forgetEntry, markDirty, type OutboxKey } from '../sync/outbox.js';
import { syncFactsOf, syncStatusesOf, type SyncFacts } from '../sync/sync-statuses.js';
import { deleteWellnessDay, findWellnessDay, saveWellnessDay, wellnessDaysBetween } from './wellness-day.repository.js';
import type { WellnessDay } from './wellness-day.table.js';
import { WELLNESS_MEASUREMENTS } from './wellness.fields.js';
import type { Measurements } from './wellness.schemas.js';

/** A recorded day as the API shows it: its local date and the measurements entered, nothing else. */
export type WellnessRecordView = Measurements & { date: string };

/** With where the day's sync stands (outbox.ts); absent for a day never changed. */
export type WellnessDayView = WellnessRecordView & { sync?: SyncFacts };

/** A date the schema accepted but the domain cannot take; `message` follows the field's name. */
type InvalidDate = { ok: false; reason: 'invalid_field'; field: 'date'; message: string };

export type WellnessOutcome = { ok: true; day: WellnessRecordView } | InvalidDate;

export interface WellnessDependencies {
  db: Db;
  clock: () => Date;
}

/**
 * Recording wellness: each write locks the user, changes the day and marks its outbox entry in one
 * transaction, then hints the queue. A day is replaced whole (§4.5 upserts by date).
 */
export function createWellness({ db, clock }: WellnessDependencies) {
  const wellnessDay = (user: User, date: string): OutboxKey => ({ userId: user.id, kind: 'wellness', subject: date });

  return {
    /** The recorded days from `from` to `to` inclusive, oldest first, each with its sync status. */
    async days(user: User, from: string, to: string): Promise<WellnessDayView[]> {
      const days = await wellnessDaysBetween(db, user.id, from, to);
      const statuses = await syncStatusesOf(
        db,
        user.id,
        'wellness',
        days.map((day) => day.date),
      );
      const syncOf = new Map(statuses.map((status) => [status.subject, syncFactsOf(status)]));
      return days.map((day) => ({ ...wellnessRecordView(day), ...(syncOf.has(day.date) && { sync: syncOf.get(day.date) }) }));
    },

    /** The recorded days from `from` to `to` inclusive, oldest first, without their sync. */
    async records(user: User, from: string, to: string): Promise<WellnessRecordView[]> {
      return (await wellnessDaysBetween(db, user.id, from, to)).map(wellnessRecordView);
    },

    /**
     * Replaces the day's record. The same record again changes nothing: no new version, so the
     * service is not sent the same day twice.
     */
    async put(user: User, date: string, measurements: Measurements): Promise<WellnessOutcome> {
      const now = clock();
      const tooLate = laterThanRecordable(date, now, user.timezone, 'a measurement');
      if (tooLate) return { ok: false, reason: 'invalid_field', field: 'date', message: tooLate };
      const { day } = await db.transaction().execute(async (trx) => {
        await lockSignedInUser(trx, user.id);
        const before = await findWellnessDay(trx, user.id, date);
        if (before && sameMeasurements(before, measurements)) return { day: before };
        const after = await saveWellnessDay(trx, {
          user_id: user.id,
          date,
          ...columnsOf(WELLNESS_MEASUREMENTS, measurements),
          created_at: before?.created_at ?? now.toISOString(),
          updated_at: now.toISOString(),
        });
        await markDirty(trx, wellnessDay(user, date), now);
        return { day: after };
      });
      return { ok: true, day: wellnessRecordView(day) };
    },

    /**
     * Deletes the day here and stops syncing it: the service offers no delete (§4.5), so it keeps
     * what it was last sent, if it was sent any. Returns whether there was a record, and that.
     */
    async remove(user: User, date: string): Promise<WellnessRemoval> {
      return db.transaction().execute(async (trx) => {
        await lockSignedInUser(trx, user.id);
        if (!(await deleteWellnessDay(trx, user.id, date))) return { deleted: false };
        return { deleted: true, ...(await forgetEntry(trx, wellnessDay(user, date))) };
      });
    },
  };
}

export type Wellness = ReturnType<typeof createWellness>;

/** A day deleted here, and whether the service had been sent a version of it (which it keeps). */
export type WellnessRemoval = { deleted: false } | { deleted: true; sentBefore: boolean };

export function wellnessRecordView(day: WellnessDay): WellnessRecordView {
  return { date: day.date, ...valuesOfRow(WELLNESS_MEASUREMENTS, day) };
}

function sameMeasurements(day: WellnessDay, measurements: Measurements): boolean {
  const stored = valuesOfRow(WELLNESS_MEASUREMENTS, day);
  return fieldNames(WELLNESS_MEASUREMENTS).every((name) => stored[name] === measurements[name]);
}
