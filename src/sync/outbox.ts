import { sql, type Expression, type ExpressionBuilder, type SqlBool, type Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';
import { hasHistory, noteHistory } from './history.js';
import { syncKinds, type SyncKind } from './sync-kinds.js';
import type { SyncProblem } from './sync-problem.js';

/**
 * The outbox's writes (docs/architecture.md, decision 3): a change marks its entry dirty in the
 * same transaction as its data, so no change is committed without its mark, and a worker records
 * what became of each version it sent. Nobody tells the queue of a fresh change: the fresh poller
 * reads the store (fresh-poller.ts). An import adds one hint after commit, so that the person's
 * history turn starts at once (hint.ts); the sweeper queues any turn a lost hint left behind. An
 * entry is one record at the service: a day of a daily kind, or one entry of another kind
 * (sync-kinds.ts). Which entries go next is in lanes.ts; what pages and metrics read is in
 * sync-statuses.ts.
 */

export interface OutboxKey {
  userId: number;
  kind: SyncKind;
  subject: string;
}

/** An entry to send, with the version it is at. */
export interface DirtyEntry extends OutboxKey {
  version: number;
}

/** Why an entry is not (yet) in the service: the raw text for details, its kind for the words. */
export interface SyncFailure {
  problem: SyncProblem;
  text: string;
}

/** Nothing went wrong with the entry's latest version (yet). */
const NO_FAILURE = { last_error: null, problem: null, next_attempt_at: null } as const;

type Writer = Db | Transaction<Database>;

/**
 * The one definition of "this entry must be sent": its latest version is neither synced nor
 * refused for good. (A refused version waits for the next change, which bumps the version.)
 */
export function needsSending(eb: ExpressionBuilder<Database, 'outbox'>) {
  return eb.and([
    eb.or([eb('outbox.synced_version', 'is', null), eb('outbox.synced_version', '<', eb.ref('outbox.version'))]),
    eb.or([eb('outbox.failed_version', 'is', null), eb('outbox.failed_version', '<', eb.ref('outbox.version'))]),
  ]);
}

function keyColumns(key: OutboxKey) {
  return { user_id: key.userId, kind: key.kind, subject: key.subject };
}

/** The row of this entry, as a where clause. */
function isEntry(key: OutboxKey) {
  return (eb: ExpressionBuilder<Database, 'outbox'>) => eb.and(keyColumns(key));
}

/**
 * A person's own change: bumps the entry's version, so whatever was sent before no longer counts as
 * the latest, and puts it in the fresh lane, ahead of every history (docs/architecture.md, "Who waits").
 */
export async function markDirty(trx: Writer, key: OutboxKey, now: Date): Promise<void> {
  await bumpVersion(trx, key, now, now.toISOString());
}

/**
 * History to send (an import, a resync): bumps each entry's version in the history lane and adds
 * the entries that were not waiting already to the person's history. An entry with a fresh change
 * still waiting keeps its lane: its whole record goes out promptly, the history included. Answers
 * whether the person's history began with these entries (none was under way).
 */
export async function markHistoryDirty(
  trx: Transaction<Database>,
  userId: number,
  keys: Omit<OutboxKey, 'userId'>[],
  now: Date,
): Promise<boolean> {
  let alreadyWaiting = 0;
  for (const kind of new Set(keys.map((key) => key.kind))) {
    const subjects = keys.filter((key) => key.kind === kind).map((key) => key.subject);
    alreadyWaiting += await countWaiting(trx, userId, (eb) => eb.and([eb('kind', '=', kind), eb('subject', 'in', subjects)]));
  }
  for (const key of keys) await bumpVersion(trx, { ...key, userId }, now, null);
  return noteHistory(trx, userId, keys.length - alreadyWaiting, now);
}

async function bumpVersion(trx: Writer, key: OutboxKey, now: Date, freshAt: string | null): Promise<void> {
  const at = now.toISOString();
  await trx
    .insertInto('outbox')
    .values({ ...keyColumns(key), version: 1, fresh_at: freshAt, updated_at: at })
    .onConflict((conflict) =>
      conflict
        .columns(['user_id', 'kind', 'subject'])
        // A new version has not been tried yet: whatever went wrong before no longer describes it.
        // A clean entry's fresh_at is null already, so history leaves a waiting fresh change as it is.
        .doUpdateSet((eb) => ({
          version: eb('outbox.version', '+', 1),
          ...NO_FAILURE,
          updated_at: at,
          ...(freshAt && { fresh_at: freshAt }),
        })),
    )
    .execute();
}

/**
 * Forgets the entry: for a subject deleted here that the service offers no delete for (§4.4, §4.5).
 * A job already sending it finds no version to record and ends. Answers whether the service had
 * been sent a version of it, which it keeps.
 */
export async function forgetEntry(trx: Writer, key: OutboxKey): Promise<{ sentBefore: boolean }> {
  const forgotten = await trx.deleteFrom('outbox').where(isEntry(key)).returning('synced_version').executeTakeFirst();
  return { sentBefore: forgotten?.synced_version != null };
}

/**
 * Forgets the entry if it is still at `version`: its subject is no longer here (deleted as the send
 * began, or by a hand edit that left the entry behind). A change made since keeps it.
 */
export async function forgetGoneEntry(db: Db, key: OutboxKey, version: number): Promise<void> {
  await db.deleteFrom('outbox').where(isEntry(key)).where('version', '=', version).execute();
}

/** The version to send, or undefined when the entry need not be sent. */
export async function dirtyVersion(db: Db, key: OutboxKey): Promise<number | undefined> {
  const row = await db.selectFrom('outbox').select('version').where(isEntry(key)).where(needsSending).executeTakeFirst();
  return row?.version;
}

/**
 * Records that `version` is in the service. Never moves backwards, so a late worker cannot undo a
 * newer sync; the entry stays dirty when it changed while `version` was on its way. Returns whether
 * the entry is now clean.
 */
export async function markSynced(db: Db, key: OutboxKey, version: number, now: Date): Promise<boolean> {
  // The row as this write left it says whether it is clean: one query per sync, not two.
  const written = await db
    .updateTable('outbox')
    .set((eb) => ({
      synced_version: version,
      synced_at: now.toISOString(),
      ...NO_FAILURE,
      fresh_at: leftFresh(eb, version),
      updated_at: now.toISOString(),
    }))
    .where(isEntry(key))
    .where((eb) => eb.or([eb('synced_version', 'is', null), eb('synced_version', '<', version)]))
    .returning((eb) => needsSending(eb).as('dirty'))
    .executeTakeFirst();
  if (written) return !written.dirty;
  return (await dirtyVersion(db, key)) === undefined;
}

/** The service refused this version for good; it shows as failed until the next change. */
export async function markFailed(db: Db, key: OutboxKey, version: number, failure: SyncFailure, now: Date): Promise<void> {
  await db
    .updateTable('outbox')
    .set((eb) => ({
      failed_version: version,
      ...failureColumns(failure),
      next_attempt_at: null,
      fresh_at: leftFresh(eb, version),
      updated_at: now.toISOString(),
    }))
    .where(isEntry(key))
    .execute();
}

/** Why the entry is still pending (it will be tried again); when the next try runs is not known yet. */
export async function recordPendingReason(db: Db, key: OutboxKey, failure: SyncFailure, now: Date): Promise<void> {
  await db
    .updateTable('outbox')
    .set({ ...failureColumns(failure), next_attempt_at: null, updated_at: now.toISOString() })
    .where(isEntry(key))
    .execute();
}

/** When the queue runs the pending entry's next try; the entry's failure stays as recorded. */
export async function recordNextAttempt(db: Db, key: OutboxKey, at: Date): Promise<void> {
  await db
    .updateTable('outbox')
    .set({ next_attempt_at: at.toISOString() })
    .where(isEntry(key))
    .where(needsSending)
    .where('last_error', 'is not', null)
    .execute();
}

/**
 * The queue holding every scheduled retry was lost (Redis emptied): no entry waits for one any more.
 * The fresh poller takes their changes up again at once, and the pages promise no time.
 */
export async function forgetScheduledRetries(db: Db): Promise<void> {
  await db.updateTable('outbox').set({ next_attempt_at: null }).where('next_attempt_at', 'is not', null).execute();
}

/** Once `version` is settled, nothing of the person's waits in the fresh lane unless they changed the entry since. */
function leftFresh(eb: ExpressionBuilder<Database, 'outbox'>, version: number) {
  return eb
    .case()
    .when('outbox.version', '=', version)
    .then(sql<null>`null`)
    .else(eb.ref('outbox.fresh_at'))
    .end();
}

function failureColumns({ problem, text }: SyncFailure) {
  return { last_error: text, problem };
}

/**
 * Moves the person's waiting fresh changes (of `kinds`, or all; those made at or before `changedBefore`,
 * or all) into the history lane: they cannot be sent now, or no longer count as a change of now.
 */
export interface FreshLaneScope {
  kinds?: readonly SyncKind[];
  changedBefore?: Date;
}

export async function leaveFreshLane(trx: Writer, userId: number, scope: FreshLaneScope = {}): Promise<void> {
  if (scope.kinds?.length === 0) return;
  await trx
    .updateTable('outbox')
    .set({ fresh_at: null })
    .where('user_id', '=', userId)
    .where((eb) => eb.and(freshInScope(eb, scope)))
    .execute();
}

function freshInScope(eb: ExpressionBuilder<Database, 'outbox'>, { kinds, changedBefore }: FreshLaneScope) {
  return [
    eb('fresh_at', 'is not', null),
    ...(kinds ? [eb('kind', 'in', kinds)] : []),
    ...(changedBefore ? [eb('fresh_at', '<=', changedBefore.toISOString())] : []),
  ];
}

/**
 * The person's waiting fresh changes (those `scope` names, or all) become history: they join the
 * history under way, or one begins with everything of theirs that waits. In a transaction that
 * holds the person's lock (lockUser), so a history that is ending cannot miss them. Returns
 * whether any history waits.
 */
export async function moveToHistory(trx: Transaction<Database>, userId: number, now: Date, scope: FreshLaneScope = {}): Promise<boolean> {
  const moving = await countWaiting(trx, userId, (eb) => eb.and(freshInScope(eb, scope)));
  await leaveFreshLane(trx, userId, scope);
  const waiting = await countWaiting(trx, userId, (eb) => eb('fresh_at', 'is', null));
  if (waiting === 0) return false;
  await noteHistory(trx, userId, (await hasHistory(trx, userId)) ? moving : waiting, now);
  return true;
}

/** How many of the person's entries of the kinds this version knows wait to be sent, of those `which` selects. */
async function countWaiting(
  trx: Writer,
  userId: number,
  which: (eb: ExpressionBuilder<Database, 'outbox'>) => Expression<SqlBool>,
): Promise<number> {
  const row = await trx
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll().as('waiting'))
    .where('user_id', '=', userId)
    .where('kind', 'in', syncKinds())
    .where(needsSending)
    .where(which)
    .executeTakeFirstOrThrow();
  return Number(row.waiting);
}
