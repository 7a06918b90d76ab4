import type { Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';

/**
 * The history lane's people (history.table.ts): a row while a person's history waits to be sent.
 * A row joins the rotation behind everyone already in it: its last turn counts as its start.
 */

type Writer = Db | Transaction<Database>;

export interface HistoryProgress {
  startedAt: Date;
  /** Entries the history has had; what does not wait of them any more is sent (or settled: refused, deleted here). */
  total: number;
}

/** Whether the person has a history under way. */
export async function hasHistory(trx: Writer, userId: number): Promise<boolean> {
  return (await trx.selectFrom('histories').select('user_id').where('user_id', '=', userId).executeTakeFirst()) !== undefined;
}

/**
 * `added` entries joined the person's history; it begins now if none was under way. Answers whether
 * it began: in a transaction that holds the person's lock (lockUser), so that two cannot both begin it.
 */
export async function noteHistory(trx: Writer, userId: number, added: number, now: Date): Promise<boolean> {
  const began = !(await hasHistory(trx, userId));
  const at = now.toISOString();
  await trx
    .insertInto('histories')
    .values({ user_id: userId, started_at: at, total: added, last_turn_at: at })
    .onConflict((conflict) => conflict.column('user_id').doUpdateSet((eb) => ({ total: eb('histories.total', '+', added) })))
    .execute();
  return began;
}

/** People with history waiting, those whose last turn ended longest ago first: the head of the rotation. */
export async function peopleInTurnOrder(db: Db, limit: number): Promise<number[]> {
  const rows = await db.selectFrom('histories').select('user_id').orderBy('last_turn_at').orderBy('user_id').limit(limit).execute();
  return rows.map((row) => row.user_id);
}

/**
 * A turn of the person's ended at `now`: they go to the back of the rotation, `delayMs` later when
 * a retry's backoff must end first, so that someone waiting out a backoff stands behind everyone until then.
 */
export async function recordTurn(db: Db, userId: number, now: Date, delayMs = 0): Promise<void> {
  const place = new Date(now.getTime() + delayMs).toISOString();
  await db.updateTable('histories').set({ last_turn_at: place }).where('user_id', '=', userId).execute();
}

export async function endHistory(trx: Writer, userId: number): Promise<void> {
  await trx.deleteFrom('histories').where('user_id', '=', userId).execute();
}

export async function historyProgress(db: Db, userId: number): Promise<HistoryProgress | undefined> {
  const row = await db.selectFrom('histories').selectAll().where('user_id', '=', userId).executeTakeFirst();
  return row && { startedAt: new Date(row.started_at), total: row.total };
}
