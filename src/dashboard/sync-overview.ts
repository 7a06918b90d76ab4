import type { User } from '../accounts/user.table.js';
import { activityNames } from '../activities/activity.repository.js';
import { capabilityOf, hasCapability } from '../connections/capabilities.js';
import type { Connection } from '../connections/connection.repository.js';
import type { DateStyle } from '../dates/date-style.js';
import { addDays, localToday } from '../dates/local-today.js';
import { SUPPORTED_DATES } from '../dates/supported-dates.js';
import type { Db } from '../db/database.js';
import { dailySyncStatuses, entryCountsOf, lastFailureOf, recentSyncStatuses, type EntrySyncStatus } from '../sync/outbox.js';
import { SUBJECT_SCHEMAS, SYNC_KINDS, isDailyKind, type SyncKind } from '../sync/sync-kinds.js';
import { describeSync, type SyncWords } from '../sync/sync-words.js';
import { historyWords } from './history-progress.js';

/**
 * The overview covers the days of the daily kinds' pages and every later day (a meal logged for
 * tomorrow, or at a time past midnight in the person's zone, is sent too), and as many of the
 * newest activities.
 */
const OVERVIEW_DAYS = 14;

export interface OverviewEntry extends SyncWords {
  /** Names the entry in the page, for the script that refreshes it (views/assets/sync-overview.js). */
  id: string;
  label: string;
  href: string;
}

export interface KindOverview {
  kind: SyncKind;
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
 * while a kind is not granted): the last 14 days of each daily kind, the newest activities, how
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
  const shown = SYNC_KINDS.filter((kind) => hasCapability(grantedScopes, kind) || counts.some((row) => row.kind === kind));
  const today = localToday(now, user.timezone);
  const days = await dailySyncStatuses(db, user.id, addDays(today, 1 - OVERVIEW_DAYS), SUPPORTED_DATES.last);
  const kinds = await Promise.all(
    shown.map(async (kind) => {
      const statuses = isDailyKind(kind)
        ? days.filter((entry) => entry.kind === kind).reverse()
        : await recentSyncStatuses(db, user.id, kind, OVERVIEW_DAYS);
      const label = await ENTRIES[kind].labeller(db, user.id, statuses, style);
      return { kind, statuses, label };
    }),
  );
  const waiting = counts.reduce((sum, row) => sum + row.waiting, 0);
  const refused = counts.reduce((sum, row) => sum + row.refused, 0);
  const history = await historyWords(db, user.id, connection, user.timezone, now);
  return {
    pending: waiting > 0,
    counts: countWords(waiting, refused),
    ...(history && { history }),
    ...(await lastProblemOf(db, user, now, style)),
    kinds: kinds.map(({ kind, statuses, label }) => ({
      kind,
      name: capabilityOf(kind).name,
      page: capabilityOf(kind).page,
      entries: statuses.map((entry) => ({
        id: entryId(entry),
        label: label(entry),
        href: ENTRIES[kind].href(entry),
        ...describeSync(entry, user.timezone, now),
      })),
    })),
  };
}

function countWords(waiting: number, refused: number): string {
  const waitingWords = waiting === 0 ? 'Nothing waits to be sent' : `${String(waiting)} waiting to be sent`;
  return refused === 0 ? `${waitingWords}.` : `${waitingWords}, ${String(refused)} refused by the service.`;
}

async function lastProblemOf(db: Db, user: User, now: Date, style: DateStyle): Promise<{ lastProblem?: string }> {
  const failure = await lastFailureOf(db, user.id);
  if (!failure) return {};
  const label = await ENTRIES[failure.kind].labeller(db, user.id, [failure], style);
  return { lastProblem: `${capabilityOf(failure.kind).name}, ${label(failure)}: ${describeSync(failure, user.timezone, now).headline}.` };
}

type Labeller = (db: Db, userId: number, entries: EntrySyncStatus[], style: DateStyle) => Promise<(entry: EntrySyncStatus) => string>;

/** How the overview shows a kind's entries: what it names each one, and where it links to. */
interface EntryPresentation {
  labeller: Labeller;
  href(entry: EntrySyncStatus): string;
}

const byDate: Labeller = async (_db, _userId, _entries, style) => (entry) => style.day(entry.subject);

const byActivityName: Labeller = async (db, userId, entries) => {
  // A subject no activity can have (a hand edit) is shown as it is, never looked up.
  const ids = entries.map((entry) => entry.subject).filter((subject) => SUBJECT_SCHEMAS.activities.safeParse(subject).success);
  const names = await activityNames(db, userId, ids.map(Number));
  return (entry) => names.get(Number(entry.subject)) ?? `Activity ${entry.subject}`;
};

/** Also the id of the entry's form on its kind's page (views/wellness.eta, views/activities.eta), for the link's fragment. */
function entryId({ kind, subject }: EntrySyncStatus): string {
  return `${kind}-${subject}`;
}

const rowOfPage = (entry: EntrySyncStatus) => `${capabilityOf(entry.kind).page}#${entryId(entry)}`;

/** A day of meals has a page of its own; a wellness day and an activity are rows of their kind's page. */
const ENTRIES: Record<SyncKind, EntryPresentation> = {
  nutrition: { labeller: byDate, href: (entry) => `/meals?date=${entry.subject}` },
  wellness: { labeller: byDate, href: rowOfPage },
  activities: { labeller: byActivityName, href: rowOfPage },
};
