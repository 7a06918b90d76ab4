import type { ColumnType } from 'kysely';
import type { SyncKind } from './sync-kinds.js';
import type { SyncProblem } from './sync-problem.js';

/**
 * The outbox: one row per user, kind and subject (a local date, or an id of this app: sync-kinds.ts)
 * that has ever changed. Every change bumps `version` in the same transaction as the change
 * itself; a sync that sent version v records `synced_version = v`. The entry is dirty while the
 * two differ, and is sent unless that version was refused for good (`failed_version`); see
 * needsSending in outbox.ts. Partial indexes hold the few rows the workers look for among millions:
 * the waiting entries, the fresh lane and the scheduled retries (docs/architecture.md, "Background reads").
 */
export interface OutboxTable {
  user_id: number;
  kind: SyncKind;
  subject: string;
  version: number;
  synced_version: number | null;
  synced_at: string | null;
  /** The version the service refused for good (400 and other 4xx); the next change tries again. */
  failed_version: number | null;
  /** The last failure, permanent or not; cleared by a successful sync. */
  last_error: string | null;
  /**
   * What kind of failure `last_error` is, decided where it was recorded (sync-problem.ts). Text when
   * read: a newer version may have recorded a word this one does not know.
   */
  problem: ColumnType<string | null, SyncProblem | null, SyncProblem | null>;
  /** When a queued retry of a pending entry runs, when known (the worker records it as it schedules one). */
  next_attempt_at: string | null;
  /**
   * When the person's own change that is not yet in the service was made: the entry goes in the
   * fresh lane, ahead of every history. Null when nothing of the kind waits, or what waits is
   * history (an import, a resync, entries from before Connect): the history lane.
   */
  fresh_at: string | null;
  updated_at: string;
}

/**
 * How many outbox entries wait to be sent (needsSending), per kind, split over a few rows by person
 * so that transactions on Postgres seldom wait for each other's: kept by triggers on the outbox in
 * the same transaction as each change (migrations/20261207090000_core_waiting_counts.ts), never
 * written by the app.
 */
export interface OutboxWaitingCountTable {
  kind: SyncKind;
  shard: number;
  entries: number;
}
