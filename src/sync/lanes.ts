import type { Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';
import { needsSending, type DirtyEntry } from './outbox.js';
import { syncKinds, type SyncKind } from './sync-kinds.js';

/**
 * What the lanes read from the outbox to decide who goes next (docs/architecture.md, "Who waits"):
 * the people whose fresh changes are due, the entries a turn sends, the history that waits.
 */

type Reader = Db | Transaction<Database>;

/**
 * People with fresh changes due (made at or before `dueBefore`: the quiet period has passed, and no
 * retry is scheduled after `now`), and whether each is connected: those who have waited longest
 * first, at most `limit`. Only kinds this version sends: another's would never be sent and would
 * come back at every look. The fresh lane's index keeps this cheap however much history waits.
 */
export async function peopleWithFreshChangesDue(
  db: Db,
  dueBefore: Date,
  now: Date,
  limit: number,
): Promise<Array<{ userId: number; connected: boolean }>> {
  const rows = await db
    .selectFrom('outbox')
    .leftJoin('connections', 'connections.user_id', 'outbox.user_id')
    .select((eb) => ['outbox.user_id', 'connections.status', eb.fn.min('outbox.fresh_at').as('waiting_since')])
    .where('outbox.kind', 'in', syncKinds())
    .where('outbox.fresh_at', '<=', dueBefore.toISOString())
    .where((eb) => eb.or([eb('outbox.next_attempt_at', 'is', null), eb('outbox.next_attempt_at', '<=', now.toISOString())]))
    .groupBy(['outbox.user_id', 'connections.status'])
    .orderBy('waiting_since')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ userId: row.user_id, connected: row.status === 'connected' }));
}

/** When the next fresh change not yet due was made (the earliest after `dueBefore`), if any, of the kinds this version sends. */
export async function nextFreshChangeAfter(db: Db, dueBefore: Date): Promise<Date | undefined> {
  const row = await db
    .selectFrom('outbox')
    .select('fresh_at')
    .where('kind', 'in', syncKinds())
    .where('fresh_at', '>', dueBefore.toISOString())
    .orderBy('fresh_at')
    .limit(1)
    .executeTakeFirst();
  return row?.fresh_at ? new Date(row.fresh_at) : undefined;
}

/**
 * The person's fresh changes due to be sent, of these kinds: the one changed or tried least recently
 * first, so an entry the service keeps failing goes behind the person's other changes.
 */
export async function freshEntriesDue(
  db: Db,
  userId: number,
  kinds: readonly SyncKind[],
  dueBefore: Date,
  limit: number,
): Promise<DirtyEntry[]> {
  if (kinds.length === 0) return [];
  const rows = await db
    .selectFrom('outbox')
    .select(['kind', 'subject', 'version'])
    .where('user_id', '=', userId)
    .where('kind', 'in', kinds)
    .where('fresh_at', '<=', dueBefore.toISOString())
    .where(needsSending)
    .orderBy('updated_at')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ userId, kind: row.kind, subject: row.subject, version: row.version }));
}

/**
 * The person's history to send, of these kinds: entries tried least recently first (a failing one
 * goes behind the rest), then the newest dates, which matter most to the service's scores.
 */
export async function historyEntries(db: Db, userId: number, kinds: readonly SyncKind[], limit: number): Promise<DirtyEntry[]> {
  if (kinds.length === 0) return [];
  const rows = await historyOf(db, userId, kinds)
    .select(['kind', 'subject', 'version'])
    .orderBy('updated_at')
    .orderBy('subject', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ userId, kind: row.kind, subject: row.subject, version: row.version }));
}

/** How many of the person's history entries of these kinds wait to be sent. */
export async function historyWaiting(db: Reader, userId: number, kinds: readonly SyncKind[]): Promise<number> {
  const byKind = await historyWaitingByKind(db, userId, kinds);
  return [...byKind.values()].reduce((sum, waiting) => sum + waiting, 0);
}

/** The same, per kind. */
export async function historyWaitingByKind(db: Reader, userId: number, kinds: readonly SyncKind[]): Promise<Map<SyncKind, number>> {
  if (kinds.length === 0) return new Map();
  const rows = await historyOf(db, userId, kinds)
    .select((eb) => ['kind', eb.fn.countAll().as('waiting')])
    .groupBy('kind')
    .execute();
  return new Map(rows.map((row) => [row.kind, Number(row.waiting)]));
}

function historyOf(db: Reader, userId: number, kinds: readonly SyncKind[]) {
  return db.selectFrom('outbox').where('user_id', '=', userId).where('kind', 'in', kinds).where('fresh_at', 'is', null).where(needsSending);
}
