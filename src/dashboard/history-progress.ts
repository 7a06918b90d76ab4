import { DateTime } from 'luxon';
import { hasCapability } from '../connections/capabilities.js';
import type { Connection } from '../connections/connection.repository.js';
import type { Db } from '../db/database.js';
import { historyProgress } from '../sync/history.js';
import { historyWaitingByKind } from '../sync/lanes.js';
import { isDailyKind, syncKinds } from '../sync/sync-kinds.js';

/**
 * The person's history on its way to the service, in plain words: how much of it is sent, and when
 * the rest should be, from the pace it has gone at so far (its share of the budget, which changes
 * as others' histories start and end: hence "about"). Undefined when no history waits, or while the
 * connection cannot send it (the dashboard says why).
 */
export async function historyWords(
  db: Db,
  userId: number,
  connection: Connection | undefined,
  timezone: string,
  now: Date,
): Promise<string | undefined> {
  if (connection?.status !== 'connected') return undefined;
  const progress = await historyProgress(db, userId);
  if (!progress) return undefined;
  const waiting = await historyWaitingByKind(
    db,
    userId,
    syncKinds().filter((kind) => hasCapability(connection.scopes, kind)),
  );
  const left = [...waiting.values()].reduce((sum, count) => sum + count, 0);
  if (left === 0) return undefined;
  const total = Math.max(progress.total, left);
  const sentSoFar = total - left;
  const what = [...waiting.keys()].every(isDailyKind) ? 'days' : 'entries';
  const sent = `History: ${count(sentSoFar)} of ${count(total)} ${what} sent`;
  const elapsedMs = now.getTime() - progress.startedAt.getTime();
  if (sentSoFar === 0 || elapsedMs <= 0) return `${sent}, starting.`;
  const done = DateTime.fromJSDate(now)
    .plus({ milliseconds: (left * elapsedMs) / sentSoFar })
    .setZone(timezone);
  return `${sent}, about ${timeLeft(done, now)} left (done around ${done.toFormat('HH:mm')}).`;
}

function count(value: number): string {
  return value.toLocaleString('en-GB');
}

/** "a minute", "3 minutes", "2 hours", "4 days": the largest unit that fits, rounded. */
function timeLeft(done: DateTime, now: Date): string {
  const relative = done.toRelative({ base: DateTime.fromJSDate(now).setZone(done.zone), locale: 'en-GB', round: true }) ?? 'a moment';
  return relative.replace(/^in /, '');
}
