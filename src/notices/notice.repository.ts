import type { Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';
import type { ConnectionNotice, NoticeKind, NoticeOutcome } from './notice.table.js';

type Writer = Db | Transaction<Database>;

export interface Incident {
  userId: number;
  grantId: string;
  kind: NoticeKind;
  detail: string;
}

/** The key that makes an incident one notice however often it is noticed: one per grant and kind (and scope). */
function incidentKey({ kind, grantId, detail }: Incident): string {
  return kind === 'scope_missing' ? `${kind}:${grantId}:${detail}` : `${kind}:${grantId}`;
}

/**
 * Records the incident, in the transaction of the change that is the incident, while its grant is
 * still the person's: nothing is recorded for a connection replaced or deleted meanwhile (an account
 * deleted while a job ran). An incident already recorded is left as it was.
 */
export async function recordIncident(trx: Writer, incident: Incident, now: Date): Promise<void> {
  await trx
    .insertInto('connection_notices')
    .columns(['user_id', 'grant_id', 'incident', 'kind', 'detail', 'created_at', 'next_attempt_at'])
    .expression((eb) =>
      eb
        .selectFrom('connections')
        .select([
          'user_id',
          'grant_id',
          eb.val(incidentKey(incident)).as('incident'),
          eb.val(incident.kind).as('kind'),
          eb.val(incident.detail).as('detail'),
          eb.val(now.toISOString()).as('created_at'),
          eb.val(now.toISOString()).as('next_attempt_at'),
        ])
        .where('user_id', '=', incident.userId)
        .where('grant_id', '=', incident.grantId),
    )
    .onConflict((conflict) => conflict.columns(['user_id', 'incident']).doNothing())
    .execute();
}

/** The scopes the service refused to this grant though its token named them (withdrawScope), whatever became of their mails. */
export async function scopesFoundMissing(db: Db, userId: number, grantId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('connection_notices')
    .select('detail')
    .where('user_id', '=', userId)
    .where('grant_id', '=', grantId)
    .where('kind', '=', 'scope_missing')
    .execute();
  return rows.flatMap((row) => (row.detail === null ? [] : [row.detail]));
}

/** Notices whose mail is due, oldest first. */
export async function dueNoticeIds(db: Db, now: Date, limit: number): Promise<number[]> {
  const rows = await db
    .selectFrom('connection_notices')
    .select('id')
    .where('outcome', 'is', null)
    .where('next_attempt_at', '<=', now.toISOString())
    .orderBy('next_attempt_at')
    .limit(limit)
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Takes the notice for one attempt until `until`, if it is still due (compare-and-swap): of workers
 * that read it at once, exactly one sends it. A worker that dies holding it leaves it to be claimed
 * again once `until` has passed.
 */
export async function claimNotice(db: Db, id: number, owner: string, now: Date, until: Date): Promise<ConnectionNotice | undefined> {
  return db
    .updateTable('connection_notices')
    .set((eb) => ({ claim_owner: owner, next_attempt_at: until.toISOString(), attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .where('outcome', 'is', null)
    .where('next_attempt_at', '<=', now.toISOString())
    .returningAll()
    .executeTakeFirst();
}

/** Ends the notice with its outcome; only the attempt that holds it may. */
export async function settleNotice(
  db: Db,
  claimed: Pick<ConnectionNotice, 'id' | 'claim_owner'>,
  outcome: NoticeOutcome,
  now: Date,
  error?: string,
): Promise<void> {
  await db
    .updateTable('connection_notices')
    .set({ outcome, settled_at: now.toISOString(), claim_owner: null, ...(error !== undefined && { last_error: error }) })
    .where('id', '=', claimed.id)
    .where('claim_owner', '=', claimed.claim_owner)
    .execute();
}

/** A failed attempt that may succeed later: the notice is due again at `retryAt`. */
export async function postponeNotice(
  db: Db,
  claimed: Pick<ConnectionNotice, 'id' | 'claim_owner'>,
  retryAt: Date,
  error: string,
): Promise<void> {
  await db
    .updateTable('connection_notices')
    .set({ next_attempt_at: retryAt.toISOString(), claim_owner: null, last_error: error })
    .where('id', '=', claimed.id)
    .where('claim_owner', '=', claimed.claim_owner)
    .execute();
}

/** The person's notices, oldest first (their data export). */
export async function noticesOf(db: Db, userId: number): Promise<ConnectionNotice[]> {
  return db.selectFrom('connection_notices').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}
