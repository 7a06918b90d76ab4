import { activityViews } from '../activities/activities.js';
import { effectiveStatus, reconnectReason } from '../connections/connection-health.js';
import { findConnection } from '../connections/connection.repository.js';
import { SUPPORTED_DATES } from '../dates/supported-dates.js';
import type { Db } from '../db/database.js';
import { noticesOf } from '../notices/notice.repository.js';
import { mealView } from '../nutrition/meals.js';
import { dailySyncStatuses, syncFactsOf } from '../sync/outbox.js';
import { wellnessRecordView } from '../wellness/wellness.js';
import { lastWorkoutList } from '../workouts/last-workout-list.repository.js';
import type { User } from './user.table.js';

/** Rows read per query: an export of years of meals never holds them all in memory at once. */
const BATCH = 500;

/**
 * Everything the app holds about the person, as JSON text in pieces (GDPR Art. 15 and 20): the
 * account, the connection's state (never a token: the sealed tokens are not even read), every meal
 * item, wellness day and activity (with the address of its stored .fit file), where each outbox
 * entry's sync stands, the mails sent about the connection, and the last workouts list fetched from
 * the service. Rows are read in batches by key, so
 * memory stays flat however much the person logged; only their own rows are read.
 */
export async function* accountExport(db: Db, user: User, now: Date): AsyncGenerator<string> {
  const connection = await findConnection(db, user.id);
  yield `{"exportedAt":${JSON.stringify(now.toISOString())}`;
  yield field('account', {
    email: user.email,
    timezone: user.timezone,
    createdAt: user.created_at,
    connectionMail: user.connection_mail === 1,
  });
  yield field(
    'connection',
    connection && {
      status: effectiveStatus(connection, now),
      reason: reconnectReason(connection, now),
      scopes: connection.scopes,
      refreshTokenExpiresAt: connection.refreshExpiresAt?.toISOString(),
    },
  );
  yield* arrayField('meals', mealsOf(db, user.id));
  yield* arrayField('wellness', wellnessOf(db, user.id));
  yield* arrayField('activities', activitiesOf(db, user.id));
  const days = await dailySyncStatuses(db, user.id, SUPPORTED_DATES.first, SUPPORTED_DATES.last);
  yield field(
    'syncDays',
    days.map((status) => ({ kind: status.kind, date: status.subject, ...syncFactsOf(status) })),
  );
  const notices = await noticesOf(db, user.id);
  yield field(
    'connectionMails',
    notices.map((notice) => ({
      kind: notice.kind,
      detail: notice.detail,
      happenedAt: notice.created_at,
      outcome: notice.outcome,
      settledAt: notice.settled_at,
    })),
  );
  const lastList = await lastWorkoutList(db, user.id);
  yield field('lastWorkoutList', lastList && { ...lastList, fetchedAt: lastList.fetchedAt.toISOString() });
  yield '}';
}

function field(name: string, value: unknown): string {
  return `,${JSON.stringify(name)}:${JSON.stringify(value ?? null)}`;
}

async function* arrayField(name: string, batches: AsyncGenerator<unknown[]>): AsyncGenerator<string> {
  yield `,${JSON.stringify(name)}:[`;
  let first = true;
  for await (const batch of batches) {
    for (const value of batch) {
      yield `${first ? '' : ','}${JSON.stringify(value)}`;
      first = false;
    }
  }
  yield ']';
}

/** Reads `next(after)` until it returns fewer than a batch, each batch starting after the last key read. */
async function* keyed<Row, Key>(next: (after: Key | undefined) => Promise<Row[]>, keyOf: (row: Row) => Key): AsyncGenerator<Row[]> {
  let after: Key | undefined;
  for (;;) {
    const rows = await next(after);
    yield rows;
    if (rows.length < BATCH) return;
    after = keyOf(rows.at(-1)!);
  }
}

async function* mealsOf(db: Db, userId: number): AsyncGenerator<unknown[]> {
  const batches = keyed(
    (after: number | undefined) =>
      db
        .selectFrom('meal_items')
        .selectAll()
        .where('user_id', '=', userId)
        .where('id', '>', after ?? 0)
        .orderBy('id')
        .limit(BATCH)
        .execute(),
    (item) => item.id,
  );
  for await (const items of batches) yield items.map(mealView);
}

async function* wellnessOf(db: Db, userId: number): AsyncGenerator<unknown[]> {
  const batches = keyed(
    (after: string | undefined) =>
      db
        .selectFrom('wellness_days')
        .selectAll()
        .where('user_id', '=', userId)
        .where('date', '>', after ?? '')
        .orderBy('date')
        .limit(BATCH)
        .execute(),
    (day) => day.date,
  );
  for await (const days of batches) yield days.map(wellnessRecordView);
}

async function* activitiesOf(db: Db, userId: number): AsyncGenerator<unknown[]> {
  const batches = keyed(
    (after: number | undefined) =>
      db
        .selectFrom('activities')
        .selectAll()
        .where('user_id', '=', userId)
        .where('id', '>', after ?? 0)
        .orderBy('id')
        .limit(BATCH)
        .execute(),
    (activity) => activity.id,
  );
  for await (const activities of batches) {
    const views = await activityViews(db, userId, activities);
    yield views.map((view) => ({ ...view, file: view.fileStored ? `/api/activities/${view.id}/file` : null }));
  }
}
