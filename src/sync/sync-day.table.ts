/** What the app keeps in the service, day by day. */
export type SyncKind = 'nutrition' | 'wellness';

/**
 * The outbox: one row per user, kind and local date that has ever changed. Every change bumps
 * `version` in the same transaction as the change itself; a sync that sent version v records
 * `synced_version = v`. The day is dirty while the two differ.
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
