import { sql, type Expression, type ExpressionBuilder, type Selectable, type SqlBool, type Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';
import { hasHistory, noteHistory } from './backfill.js';
import { DAILY_KINDS, SYNC_KINDS, type SyncKind } from './sync-kinds.js';
import { isSyncProblem, type SyncProblem } from './sync-problem.js';

/**
 * The outbox (docs/architecture.md, decision 3). A change marks its entry dirty in the same transaction, so no
 * change can be committed without its mark; the queue is only told afterwards, as a hint, and the
 * sweeper finds whatever a lost hint left behind. An entry is one record at the service: a day of
 * nutrition, a day of wellness, an activity (sync-kinds.ts).
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

export type SyncState = 'pending' | 'synced' | 'failed';

export interface EntrySyncStatus {
  kind: SyncKind;
  subject: string;
  status: SyncState;
  syncedAt?: string;
  /** Which version of the entry is in the service: every change to it makes a new one. */
  syncedVersion?: number;
  /** The raw reason of the last failure, and what kind of failure it was. */
  error?: string;
  problem?: SyncProblem;
  /** When a queued retry runs, when known. */
  nextAttemptAt?: string;
  /** When the entry last changed or was tried. */
  changedAt: string;
}

/** Where an entry's sync stands, without which entry it is: what pages and the JSON API show. */
export type SyncFacts = Omit<EntrySyncStatus, 'kind' | 'subject' | 'changedAt'>;

export function syncFactsOf({ kind: _kind, subject: _subject, changedAt: _changedAt, ...facts }: EntrySyncStatus): SyncFacts {
  return facts;
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
function needsSending(eb: ExpressionBuilder<Database, 'outbox'>) {
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
 * History to send (an import, a resync): bumps each entry's version in the backfill lane and adds
 * the entries that were not waiting already to the person's history. An entry with a fresh change
 * still waiting keeps its lane: its whole record goes out promptly, the history included.
 */
export async function markHistoryDirty(
  trx: Transaction<Database>,
  userId: number,
  keys: Omit<OutboxKey, 'userId'>[],
  now: Date,
): Promise<void> {
  let alreadyWaiting = 0;
  for (const kind of new Set(keys.map((key) => key.kind))) {
    const subjects = keys.filter((key) => key.kind === kind).map((key) => key.subject);
    alreadyWaiting += await countWaiting(trx, userId, (eb) => eb.and([eb('kind', '=', kind), eb('subject', 'in', subjects)]));
  }
  for (const key of keys) await bumpVersion(trx, { ...key, userId }, now, null);
  await noteHistory(trx, userId, keys.length - alreadyWaiting, now);
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
    .where('outbox.kind', 'in', SYNC_KINDS)
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
    .where('kind', 'in', SYNC_KINDS)
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
export async function historyWaiting(db: Writer, userId: number, kinds: readonly SyncKind[]): Promise<number> {
  const byKind = await historyWaitingByKind(db, userId, kinds);
  return [...byKind.values()].reduce((sum, waiting) => sum + waiting, 0);
}

/** The same, per kind. */
export async function historyWaitingByKind(db: Writer, userId: number, kinds: readonly SyncKind[]): Promise<Map<SyncKind, number>> {
  if (kinds.length === 0) return new Map();
  const rows = await historyOf(db, userId, kinds)
    .select((eb) => ['kind', eb.fn.countAll().as('waiting')])
    .groupBy('kind')
    .execute();
  return new Map(rows.map((row) => [row.kind, Number(row.waiting)]));
}

function historyOf(db: Writer, userId: number, kinds: readonly SyncKind[]) {
  return db.selectFrom('outbox').where('user_id', '=', userId).where('kind', 'in', kinds).where('fresh_at', 'is', null).where(needsSending);
}

/**
 * Moves the person's waiting fresh changes (of `kinds`, or all; those made at or before `changedBefore`,
 * or all) into the backfill lane: they cannot be sent now, or no longer count as a change of now.
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
    .where('kind', 'in', SYNC_KINDS)
    .where(needsSending)
    .where(which)
    .executeTakeFirstOrThrow();
  return Number(row.waiting);
}

/** Per kind, how many entries wait to be sent (whatever holds them up) and when the longest-waiting one last changed. */
export async function waitingEntries(db: Db): Promise<Array<{ kind: SyncKind; entries: number; oldestChange: Date }>> {
  const rows = await db
    .selectFrom('outbox')
    .select((eb) => ['kind', eb.fn.countAll().as('entries'), eb.fn.min('updated_at').as('oldest_change')])
    .where(needsSending)
    .groupBy('kind')
    .execute();
  return rows.map((row) => ({ kind: row.kind, entries: Number(row.entries), oldestChange: new Date(row.oldest_change) }));
}

/** The user's daily entries from `from` to `to` inclusive (local dates) that have ever changed, with where their sync stands. */
export async function dailySyncStatuses(db: Db, userId: number, from: string, to: string): Promise<EntrySyncStatus[]> {
  const rows = await entriesOf(db, userId)
    .where('kind', 'in', DAILY_KINDS)
    .where('subject', '>=', from)
    .where('subject', '<=', to)
    .orderBy('subject')
    .orderBy('kind')
    .execute();
  return rows.map(statusOf);
}

/** Where the sync of these entries of one kind stands; entries never changed are left out. */
export async function syncStatusesOf(db: Db, userId: number, kind: SyncKind, subjects: string[]): Promise<EntrySyncStatus[]> {
  if (subjects.length === 0) return [];
  const rows = await entriesOf(db, userId).where('kind', '=', kind).where('subject', 'in', subjects).execute();
  return rows.map(statusOf);
}

/** The user's outbox entries, as a query to narrow down. */
function entriesOf(db: Db, userId: number) {
  return db.selectFrom('outbox').selectAll().where('user_id', '=', userId);
}

function statusOf(row: Selectable<Database['outbox']>): EntrySyncStatus {
  const status: SyncState = row.version === row.synced_version ? 'synced' : row.version === row.failed_version ? 'failed' : 'pending';
  return {
    kind: row.kind,
    subject: row.subject,
    status,
    ...(row.synced_at !== null && status === 'synced' && { syncedAt: row.synced_at, syncedVersion: row.version }),
    ...(row.last_error !== null && status !== 'synced' && { error: row.last_error }),
    ...(row.problem !== null && isSyncProblem(row.problem) && status !== 'synced' && { problem: row.problem }),
    ...(row.next_attempt_at !== null && status === 'pending' && { nextAttemptAt: row.next_attempt_at }),
    changedAt: row.updated_at,
  };
}

/**
 * Per kind, how many of the user's entries wait to be sent and how many the service refused. Only
 * kinds this version knows, as in dirtyEntriesOf: it never sends the others, which would wait forever.
 */
export async function entryCountsOf(db: Db, userId: number): Promise<Array<{ kind: SyncKind; waiting: number; refused: number }>> {
  const rows = await db
    .selectFrom('outbox')
    .select((eb) => [
      'kind',
      eb.fn.countAll().filterWhere(needsSending).as('waiting'),
      eb.fn.countAll().filterWhere('failed_version', '=', eb.ref('version')).as('refused'),
    ])
    .where('user_id', '=', userId)
    .where('kind', 'in', SYNC_KINDS)
    .groupBy('kind')
    .execute();
  return rows.map((row) => ({ kind: row.kind, waiting: Number(row.waiting), refused: Number(row.refused) }));
}

/**
 * The user's entry whose failure was recorded last, among those not in the service (waiting or
 * refused), of the kinds this version knows. Read newest first from the index of failures
 * (outbox_failures_by_user), so it costs a row or so however many entries the person has.
 */
export async function lastFailureOf(db: Db, userId: number): Promise<EntrySyncStatus | undefined> {
  const row = await entriesOf(db, userId)
    .where('last_error', 'is not', null)
    .where((eb) => eb.or([eb('synced_version', 'is', null), eb('synced_version', '<>', eb.ref('version'))]))
    .where('kind', 'in', SYNC_KINDS)
    .orderBy('updated_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && statusOf(row);
}

/** The user's entries of one kind that changed last, newest first, with where their sync stands. */
export async function recentSyncStatuses(db: Db, userId: number, kind: SyncKind, limit: number): Promise<EntrySyncStatus[]> {
  const rows = await entriesOf(db, userId).where('kind', '=', kind).orderBy('updated_at', 'desc').limit(limit).execute();
  return rows.map(statusOf);
}
