import { SUPPORTED_DATES, isSupportedDate } from '../dates/supported-dates.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { markFailed, type DayKey, type DirtyDay } from './outbox.js';

export interface OutboxLoopDependencies {
  db: Db;
  logger: Logger;
  clock: () => Date;
}

/**
 * Of dirty days read from the outbox, those that can be sent. A row whose date is not a calendar
 * date within SUPPORTED_DATES (written before the bounds existed, or by hand) can never be queued
 * or sent: it is logged, marked failed with the reason, and left out. So one bad row never stops a
 * loop over many users' days (the sweep, resume and drop on Connect and Disconnect) at the days
 * after it, and the sweeper stops picking it.
 */
export async function setAsideUnsendableDays({ db, logger, clock }: OutboxLoopDependencies, days: DirtyDay[]): Promise<DayKey[]> {
  const sendable: DayKey[] = [];
  for (const day of days) {
    if (isSupportedDate(day.date)) {
      sendable.push(day);
      continue;
    }
    const reason = `Not sent: "${day.date}" is not a date from ${SUPPORTED_DATES.first} to ${SUPPORTED_DATES.last} as YYYY-MM-DD.`;
    logger.warn({ userId: day.userId, kind: day.kind, date: day.date, version: day.version }, 'outbox day cannot be sent; marked failed');
    await markFailed(db, day, day.version, reason, clock());
  }
  return sendable;
}
