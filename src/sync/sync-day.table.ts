/**
 * What the app keeps in the service, day by day. Wellness joins this list with its own issue;
 * everything here (outbox, queue, jobs) is written to take it.
 */
export const SYNC_KINDS = ['nutrition'] as const;

export type SyncKind = (typeof SYNC_KINDS)[number];

/**
 * The outbox: one row per user, kind and local date that has ever changed. Every change bumps
 * `version` in the same transaction as the change itself; a sync that sent version v records
 * `synced_version = v`. The day is dirty while the two differ, and is sent unless that version
 * was refused for good (`failed_version`); see needsSending in outbox.ts.
 */
export interface SyncDayTable {
  user_id: number;
  kind: SyncKind;
  date: string;
  version: number;
  synced_version: number | null;
  synced_at: string | null;
  /** The version the service refused for good (400 and other 4xx); the next change tries again. */
  failed_version: number | null;
  /** The last failure, permanent or not; cleared by a successful sync. */
  last_error: string | null;
  updated_at: string;
}
