import { DateTime } from 'luxon';
import type { User } from '../accounts/user.table.js';
import { activityNames } from '../activities/activity.repository.js';
import { capabilityOf, hasCapability } from '../connections/capabilities.js';
import type { Scope } from '../provider/scopes.js';
import type { Db } from '../db/database.js';
import { entryCountsOf, recentSyncStatuses, type EntrySyncStatus } from '../sync/outbox.js';
import { SYNC_KINDS, isDailyKind, type SyncKind } from '../sync/sync-kinds.js';

/** How many recent entries of each kind the dashboard shows. */
const RECENT_ENTRIES = 5;

export interface KindSummary {
  kind: SyncKind;
  name: string;
  page: string;
  waiting: number;
  refused: number;
  recent: Array<{ label: string; href: string; state: EntrySyncStatus['status']; words: string }>;
}

/**
 * Where the sync of each kind stands, for kinds the person granted or has entries of (entries wait
 * while a kind is not granted): counts, and the entries that changed last.
 */
export async function syncSummary(db: Db, user: User, grantedScopes: readonly Scope[]): Promise<KindSummary[]> {
  const counts = await entryCountsOf(db, user.id);
  const shown = SYNC_KINDS.filter((kind) => hasCapability(grantedScopes, kind) || counts.some((row) => row.kind === kind));
  return Promise.all(
    shown.map(async (kind) => {
      const count = counts.find((row) => row.kind === kind);
      const recent = await recentSyncStatuses(db, user.id, kind, RECENT_ENTRIES);
      const label = await entryLabeller(db, user.id, kind, recent);
      return {
        kind,
        name: capabilityOf(kind).name,
        page: capabilityOf(kind).page,
        waiting: count?.waiting ?? 0,
        refused: count?.refused ?? 0,
        recent: recent.map((entry) => ({
          label: label(entry),
          href: entryLink(entry),
          state: entry.status,
          words: statusWords(entry, user.timezone),
        })),
      };
    }),
  );
}

/** A daily entry is named by its date, an activity by its name. */
async function entryLabeller(db: Db, userId: number, kind: SyncKind, entries: EntrySyncStatus[]) {
  if (isDailyKind(kind)) return (entry: EntrySyncStatus) => entry.subject;
  const names = await activityNames(db, userId, entries.map((entry) => Number(entry.subject)));
  return (entry: EntrySyncStatus) => names.get(Number(entry.subject)) ?? `Activity ${entry.subject}`;
}

function entryLink({ kind, subject }: EntrySyncStatus): string {
  return kind === 'nutrition' ? `/meals?date=${subject}` : capabilityOf(kind).page;
}

function statusWords(entry: EntrySyncStatus, timezone: string): string {
  if (entry.status === 'synced') {
    return `Sent ${DateTime.fromISO(entry.syncedAt!).setZone(timezone).toFormat('d LLL, HH:mm')}`;
  }
  if (entry.status === 'failed') return `Refused by the service: ${entry.error ?? 'no reason given'}`;
  return entry.error ? `Waiting: ${entry.error}` : 'Waiting to be sent';
}
