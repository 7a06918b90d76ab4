import type { Selectable } from 'kysely';
import type { Database, Db } from '../db/database.js';
import { needsSending } from './outbox.js';
import { dailyKinds, syncKinds, type SyncKind } from './sync-kinds.js';
import { isSyncProblem, type SyncProblem } from './sync-problem.js';

/** Where the sync of the outbox's entries stands, as the pages, the JSON API, the export and the metrics read it. */

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

/**
 * Per kind this version sends, how many entries wait to be sent (whatever holds them up) and when
 * the longest-waiting one last changed. The counts are the few rows the store keeps up to date as
 * entries start and stop waiting (outbox_waiting_counts); the oldest change is the first entry of
 * the kind in the index of waiting entries (outbox_waiting). So what it costs follows neither what
 * waits nor what was sent.
 */
export async function waitingEntries(db: Db): Promise<Array<{ kind: SyncKind; entries: number; oldestChange: Date }>> {
  const counts = await db
    .selectFrom('outbox_waiting_counts')
    .select((eb) => ['kind', eb.fn.sum<number | string>('entries').as('entries')])
    .where('kind', 'in', syncKinds())
    .groupBy('kind')
    .execute();
  const waiting = [];
  for (const { kind, entries } of counts) {
    // Sent between the two reads: the next scrape counts it as gone.
    const oldestChange = Number(entries) > 0 ? await oldestChangeWaiting(db, kind) : undefined;
    if (oldestChange) waiting.push({ kind, entries: Number(entries), oldestChange });
  }
  return waiting;
}

async function oldestChangeWaiting(db: Db, kind: SyncKind): Promise<Date | undefined> {
  const oldest = await db
    .selectFrom('outbox')
    .select('updated_at')
    .where('kind', '=', kind)
    .where(needsSending)
    .orderBy('updated_at')
    .limit(1)
    .executeTakeFirst();
  return oldest && new Date(oldest.updated_at);
}

/** The user's daily entries from `from` to `to` inclusive (local dates) that have ever changed, with where their sync stands. */
export async function dailySyncStatuses(db: Db, userId: number, from: string, to: string): Promise<EntrySyncStatus[]> {
  const rows = await entriesOf(db, userId)
    .where('kind', 'in', dailyKinds())
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
 * kinds this version knows, as the lanes read them: it never sends the others, which would wait forever.
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
    .where('kind', 'in', syncKinds())
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
    .where('kind', 'in', syncKinds())
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

/**
 * When each of the user's entries was last received by the service, for those received at `since`
 * or later: read from the person's own rows of the outbox (its key starts with the user), never a scan.
 */
export async function receivedSince(db: Db, userId: number, since: Date): Promise<string[]> {
  const rows = await db
    .selectFrom('outbox')
    .select('synced_at')
    .where('user_id', '=', userId)
    .where('synced_at', '>=', since.toISOString())
    .execute();
  return rows.flatMap((row) => row.synced_at ?? []);
}
