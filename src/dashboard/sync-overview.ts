import type { User } from '../accounts/user.table.js';
import { hasCapability } from '../connections/capabilities.js';
import type { Connection } from '../connections/connection.repository.js';
import type { DateStyle } from '../dates/date-style.js';
import { addDays, localToday } from '../dates/local-today.js';
import { SUPPORTED_DATES } from '../dates/supported-dates.js';
import type { Db } from '../db/database.js';
import { dailySyncStatuses, entryCountsOf, lastFailureOf, recentSyncStatuses } from '../sync/sync-statuses.js';
import { SYNCED_KINDS } from '../kinds.js';
import { entryId } from '../kinds/entry-presentations.js';
import type { SyncedKind } from '../kinds/kind.js';
import { syncReachOf } from '../sync/sync-describer.js';
import { describeSync, type SyncReach, type SyncWords } from '../sync/sync-words.js';
import { historyWords } from './history-progress.js';

/**
 * The overview covers the days of the daily kinds' pages and every later day (an entry logged for
 * tomorrow, or at a time past midnight in the person's zone, is sent too), and as many of the
 * newest entries of each kind not keyed by date.
 */
const OVERVIEW_DAYS = 14;

export interface OverviewEntry extends SyncWords {
  /** Names the entry in the page, for the script that refreshes it (views/assets/sync-overview.js). */
  id: string;
  label: string;
  href: string;
}

export interface KindOverview {
  kind: string;
  name: string;
  page: string;
  entries: OverviewEntry[];
}

export interface SyncOverview {
  /** Whether anything waits to be sent: the page keeps refreshing the overview while it does. */
  pending: boolean;
  counts: string;
  /** The person's history on its way (history-progress.ts), while any waits. */
  history?: string;
  /** The newest failure among all the person's entries not in the service, shown or not, in plain words. */
  lastProblem?: string;
  kinds: KindOverview[];
}

/**
 * Where the sync of each kind stands, for kinds the person granted or has entries of (entries wait
 * while a kind is not granted): the last 14 days of each daily kind, the newest entries of the others, how
 * many entries wait, how far their history has come, and the last thing that went wrong with any
 * of their entries, so that a count of entries waiting is never left without its reason.
 */
export async function syncOverview(
  db: Db,
  user: User,
  connection: Connection | undefined,
  now: Date,
  style: DateStyle,
): Promise<SyncOverview> {
  const grantedScopes = connection?.scopes ?? [];
  const counts = await entryCountsOf(db, user.id);
  const shown = SYNCED_KINDS.filter((kind) => hasCapability(grantedScopes, kind.name) || counts.some((row) => row.kind === kind.name));
  const today = localToday(now, user.timezone);
  const days = await dailySyncStatuses(db, user.id, addDays(today, 1 - OVERVIEW_DAYS), SUPPORTED_DATES.last);
  const kinds = await Promise.all(
    shown.map(async (kind) => {
      const statuses = kind.sync.daily
        ? days.filter((entry) => entry.kind === kind.name).reverse()
        : await recentSyncStatuses(db, user.id, kind.name, OVERVIEW_DAYS);
      const label = await kind.sync.overview.labeller(db, user.id, statuses, style);
      return { kind, statuses, label };
    }),
  );
  const waiting = counts.reduce((sum, row) => sum + row.waiting, 0);
  const refused = counts.reduce((sum, row) => sum + row.refused, 0);
  const history = await historyWords(db, user.id, connection, user.timezone, now);
  const reach = syncReachOf(connection, now);
  return {
    pending: waiting > 0,
    counts: countWords(waiting, refused),
    ...(history && { history }),
    ...(await lastProblemOf(db, user, now, style, reach)),
    kinds: kinds.map(({ kind, statuses, label }) => ({
      kind: kind.name,
      name: kind.title,
      page: kind.page.path,
      entries: statuses.map((entry) => ({
        id: entryId(entry),
        label: label(entry),
        href: kind.sync.overview.href(entry),
        ...describeSync(entry, user.timezone, now, reach),
      })),
    })),
  };
}

function countWords(waiting: number, refused: number): string {
  const waitingWords = waiting === 0 ? 'Nothing waits to be sent' : `${String(waiting)} waiting to be sent`;
  return refused === 0 ? `${waitingWords}.` : `${waitingWords}, ${String(refused)} refused by the service.`;
}

async function lastProblemOf(db: Db, user: User, now: Date, style: DateStyle, reach: SyncReach): Promise<{ lastProblem?: string }> {
  const failure = await lastFailureOf(db, user.id);
  const kind = failure && syncedKindNamed(failure.kind);
  if (!failure || !kind) return {};
  const label = await kind.sync.overview.labeller(db, user.id, [failure], style);
  return { lastProblem: `${kind.title}, ${label(failure)}: ${describeSync(failure, user.timezone, now, reach).headline}.` };
}

function syncedKindNamed(name: string): SyncedKind | undefined {
  return SYNCED_KINDS.find((kind) => kind.name === name);
}
