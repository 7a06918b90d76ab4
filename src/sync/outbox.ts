import { sql, type ExpressionBuilder, type Transaction } from 'kysely';
import { scopeOf } from '../connections/capabilities.js';
import type { Database, Db } from '../db/database.js';
import { SYNC_KINDS, type SyncKind } from './sync-day.table.js';

/**
 * The dirty-day outbox (DESIGN, decision 3). A change marks its day dirty in the same
 * transaction, so no change can be committed without its mark; the queue is only told
 * afterwards, as a hint, and the sweeper finds whatever a lost hint left behind.
 */

export interface DayKey {
  userId: number;
  kind: SyncKind;
  date: string;
}

/** A day to send, with the version it is at. */
export interface DirtyDay extends DayKey {
  version: number;
}

export type DayStatus = 'pending' | 'synced' | 'failed';

export interface DaySyncStatus {
  kind: SyncKind;
  date: string;
  status: DayStatus;
  syncedAt?: string;
  /** Which version of the day is in the service: every change to the day makes a new one. */
  syncedVersion?: number;
  error?: string;
}

type Writer = Db | Transaction<Database>;

/**
 * The one definition of "this day must be sent": its latest version is neither synced nor
 * refused for good. (A refused version waits for the next change, which bumps the version.)
 */
function needsSending(eb: ExpressionBuilder<Database, 'sync_days'>) {
  return eb.and([
    eb.or([eb('sync_days.synced_version', 'is', null), eb('sync_days.synced_version', '<', eb.ref('sync_days.version'))]),
    eb.or([eb('sync_days.failed_version', 'is', null), eb('sync_days.failed_version', '<', eb.ref('sync_days.version'))]),
  ]);
}

function dayColumns(day: DayKey) {
  return { user_id: day.userId, kind: day.kind, date: day.date };
}

/** The row of this day, as a where clause. */
function isDay(day: DayKey) {
  return (eb: ExpressionBuilder<Database, 'sync_days'>) => eb.and(dayColumns(day));
}

/** Bumps the day's version: whatever was sent before no longer counts as the latest. */
export async function markDirty(trx: Writer, day: DayKey, now: Date): Promise<void> {
  await trx
    .insertInto('sync_days')
    .values({ ...dayColumns(day), version: 1, updated_at: now.toISOString() })
    .onConflict((conflict) =>
      conflict
        .columns(['user_id', 'kind', 'date'])
        // A new version has not been tried yet: whatever went wrong before no longer describes it.
        .doUpdateSet((eb) => ({ version: eb('sync_days.version', '+', 1), last_error: null, updated_at: now.toISOString() })),
    )
    .execute();
}

/** The version to send, or undefined when the day need not be sent. */
export async function dirtyVersion(db: Db, day: DayKey): Promise<number | undefined> {
  const row = await db
    .selectFrom('sync_days')
    .select('version')
    .where(isDay(day))
    .where(needsSending)
    .executeTakeFirst();
  return row?.version;
}

/**
 * Records that `version` is in the service. Never moves backwards, so a late worker cannot undo a
 * newer sync; the day stays dirty when it changed while `version` was on its way. Returns whether
 * the day is now clean.
 */
export async function markSynced(db: Db, day: DayKey, version: number, now: Date): Promise<boolean> {
  await db
    .updateTable('sync_days')
    .set({ synced_version: version, synced_at: now.toISOString(), last_error: null, updated_at: now.toISOString() })
    .where(isDay(day))
    .where((eb) => eb.or([eb('synced_version', 'is', null), eb('synced_version', '<', version)]))
    .execute();
  return (await dirtyVersion(db, day)) === undefined;
}

/** The service refused this version for good; it shows as failed until the next change. */
export async function markFailed(db: Db, day: DayKey, version: number, error: string, now: Date): Promise<void> {
  await db
    .updateTable('sync_days')
    .set({ failed_version: version, last_error: error, updated_at: now.toISOString() })
    .where(isDay(day))
    .execute();
}

/** Why the day is still pending (it will be tried again). */
export async function recordPendingReason(db: Db, day: DayKey, reason: string, now: Date): Promise<void> {
  await db
    .updateTable('sync_days')
    .set({ last_error: reason, updated_at: now.toISOString() })
    .where(isDay(day))
    .execute();
}

/**
 * Days to send for users who can be synced now (connected, with the kind's scope granted), oldest
 * change first: what the sweeper hands to the queue. Others wait until they reconnect.
 */
export async function dirtyDaysOfConnectedUsers(db: Db, kind: SyncKind, limit: number): Promise<DirtyDay[]> {
  const rows = await db
    .selectFrom('sync_days')
    .innerJoin('connections', 'connections.user_id', 'sync_days.user_id')
    .select(['sync_days.user_id', 'sync_days.date', 'sync_days.version'])
    .where('sync_days.kind', '=', kind)
    .where('connections.status', '=', 'connected')
    // Scopes are stored space-separated; padding both sides matches whole names only. Filtered
    // before the limit, so days that cannot be sent never crowd out those that can.
    .where(sql<string>`' ' || connections.scopes || ' '`, 'like', `% ${scopeOf(kind)} %`)
    .where(needsSending)
    .orderBy('sync_days.updated_at')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ userId: row.user_id, kind, date: row.date, version: row.version }));
}

/**
 * A user's days to send, e.g. to resume them right after reconnecting. Only kinds this version
 * knows: a kind added by a newer version, met during a rolling deploy, is left for that version.
 */
export async function dirtyDaysOf(db: Db, userId: number): Promise<DirtyDay[]> {
  const rows = await db
    .selectFrom('sync_days')
    .select(['kind', 'date', 'version'])
    .where('user_id', '=', userId)
    .where('kind', 'in', SYNC_KINDS)
    .where(needsSending)
    .execute();
  return rows.map((row) => ({ userId, kind: row.kind, date: row.date, version: row.version }));
}

/** Per kind, how many days wait to be sent (whatever holds them up) and when the longest-waiting one last changed. */
export async function waitingDays(db: Db): Promise<Array<{ kind: SyncKind; days: number; oldestChange: Date }>> {
  const rows = await db
    .selectFrom('sync_days')
    .select((eb) => ['kind', eb.fn.countAll().as('days'), eb.fn.min('updated_at').as('oldest_change')])
    .where(needsSending)
    .groupBy('kind')
    .execute();
  return rows.map((row) => ({ kind: row.kind, days: Number(row.days), oldestChange: new Date(row.oldest_change) }));
}

/** Days from `from` to `to` inclusive that have ever changed, with where their sync stands. */
export async function syncStatuses(db: Db, userId: number, from: string, to: string): Promise<DaySyncStatus[]> {
  const rows = await db
    .selectFrom('sync_days')
    .selectAll()
    .where('user_id', '=', userId)
    .where('date', '>=', from)
    .where('date', '<=', to)
    .orderBy('date')
    .orderBy('kind')
    .execute();
  return rows.map((row) => {
    const status: DayStatus =
      row.version === row.synced_version ? 'synced' : row.version === row.failed_version ? 'failed' : 'pending';
    return {
      kind: row.kind,
      date: row.date,
      status,
      ...(row.synced_at !== null && status === 'synced' && { syncedAt: row.synced_at, syncedVersion: row.version }),
      ...(row.last_error !== null && status !== 'synced' && { error: row.last_error }),
    };
  });
}
