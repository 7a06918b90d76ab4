import { sql, type ExpressionBuilder, type Selectable, type Transaction } from 'kysely';
import { scopeOf } from '../connections/capabilities.js';
import type { Database, Db } from '../db/database.js';
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

/** Bumps the entry's version: whatever was sent before no longer counts as the latest. */
export async function markDirty(trx: Writer, key: OutboxKey, now: Date): Promise<void> {
  await trx
    .insertInto('outbox')
    .values({ ...keyColumns(key), version: 1, updated_at: now.toISOString() })
    .onConflict((conflict) =>
      conflict
        .columns(['user_id', 'kind', 'subject'])
        // A new version has not been tried yet: whatever went wrong before no longer describes it.
        .doUpdateSet((eb) => ({ version: eb('outbox.version', '+', 1), ...NO_FAILURE, updated_at: now.toISOString() })),
    )
    .execute();
}

/**
 * Forgets the entry: for a subject deleted here that the service offers no delete for (§4.4, §4.5).
 * A job already sending it finds no version to record and ends.
 */
export async function forgetEntry(trx: Writer, key: OutboxKey): Promise<void> {
  await trx.deleteFrom('outbox').where(isEntry(key)).execute();
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
    .set({ synced_version: version, synced_at: now.toISOString(), ...NO_FAILURE, updated_at: now.toISOString() })
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
    .set({ failed_version: version, ...failureColumns(failure), next_attempt_at: null, updated_at: now.toISOString() })
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

function failureColumns({ problem, text }: SyncFailure) {
  return { last_error: text, problem };
}

/**
 * Entries to send for users who can be synced now (connected, with the kind's scope granted),
 * oldest change first: what the sweeper hands to the queue. Others wait until they reconnect.
 */
export async function dirtyEntriesOfConnectedUsers(db: Db, kind: SyncKind, limit: number): Promise<DirtyEntry[]> {
  const rows = await db
    .selectFrom('outbox')
    .innerJoin('connections', 'connections.user_id', 'outbox.user_id')
    .select(['outbox.user_id', 'outbox.subject', 'outbox.version'])
    .where('outbox.kind', '=', kind)
    .where('connections.status', '=', 'connected')
    // Scopes are stored space-separated; padding both sides matches whole names only. Filtered
    // before the limit, so entries that cannot be sent never crowd out those that can.
    .where(sql<string>`' ' || connections.scopes || ' '`, 'like', `% ${scopeOf(kind)} %`)
    .where(needsSending)
    .orderBy('outbox.updated_at')
    .limit(limit)
    .execute();
  return rows.map((row) => ({ userId: row.user_id, kind, subject: row.subject, version: row.version }));
}

/**
 * A user's entries to send, e.g. to resume them right after reconnecting. Only kinds this version
 * knows: a kind added by a newer version, met during a rolling deploy, is left for that version.
 */
export async function dirtyEntriesOf(db: Db, userId: number): Promise<DirtyEntry[]> {
  const rows = await db
    .selectFrom('outbox')
    .select(['kind', 'subject', 'version'])
    .where('user_id', '=', userId)
    .where('kind', 'in', SYNC_KINDS)
    .where(needsSending)
    .execute();
  return rows.map((row) => ({ userId, kind: row.kind, subject: row.subject, version: row.version }));
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
  const rows = await entriesOf(db, userId)
    .where('kind', '=', kind)
    .where('subject', 'in', subjects)
    .execute();
  return rows.map(statusOf);
}

/** The user's outbox entries, as a query to narrow down. */
function entriesOf(db: Db, userId: number) {
  return db.selectFrom('outbox').selectAll().where('user_id', '=', userId);
}

function statusOf(row: Selectable<Database['outbox']>): EntrySyncStatus {
  const status: SyncState =
    row.version === row.synced_version ? 'synced' : row.version === row.failed_version ? 'failed' : 'pending';
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

/** The user's entries of one kind that changed last, newest first, with where their sync stands. */
export async function recentSyncStatuses(db: Db, userId: number, kind: SyncKind, limit: number): Promise<EntrySyncStatus[]> {
  const rows = await entriesOf(db, userId)
    .where('kind', '=', kind)
    .orderBy('updated_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map(statusOf);
}
