import { SUPPORTED_DATES } from '../dates/supported-dates.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { markFailed, type DayKey, type DirtyDay } from './outbox.js';
import { dayJobSchema } from './queue.js';

export interface OutboxLoopDependencies {
  db: Db;
  logger: Logger;
  clock: () => Date;
}

/**
 * Of dirty days read from the outbox, those that can be sent. A row the queue's job schema refuses
 * (a date outside SUPPORTED_DATES written before the bounds existed, or a hand edit such as a user
 * id of 0) can never be queued or sent: it is logged, marked failed with the reason, and left out.
 * So one bad row never stops a loop over many users' days (the sweep, resume and drop on Connect
 * and Disconnect) at the days after it, and the sweeper stops picking it.
 */
export async function setAsideUnsendableDays({ db, logger, clock }: OutboxLoopDependencies, days: DirtyDay[]): Promise<DayKey[]> {
  const sendable: DayKey[] = [];
  for (const day of days) {
    const reason = unsendableReason(day);
    if (reason === undefined) {
      sendable.push(day);
      continue;
    }
    logger.warn({ userId: day.userId, kind: day.kind, date: day.date, version: day.version }, 'outbox day cannot be sent; marked failed');
    await markFailed(db, day, day.version, reason, clock());
  }
  return sendable;
}

/** Why a day can never be queued, or undefined when it can: the job schema decides, as it does at the enqueue. */
function unsendableReason(day: DirtyDay): string | undefined {
  const parsed = dayJobSchema.safeParse(day);
  if (parsed.success) return undefined;
  if (parsed.error.issues.some((issue) => issue.path[0] === 'date')) {
    return `Not sent: "${day.date}" is not a date from ${SUPPORTED_DATES.first} to ${SUPPORTED_DATES.last} as YYYY-MM-DD.`;
  }
  return `Not sent: user id ${String(day.userId)} is not a positive whole number.`;
}
