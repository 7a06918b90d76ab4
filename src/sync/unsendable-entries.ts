import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { markFailed, type DirtyEntry, type OutboxKey } from './outbox.js';
import { entryJobSchema } from './queue.js';

export interface OutboxLoopDependencies {
  db: Db;
  logger: Logger;
  clock: () => Date;
}

/**
 * Of dirty entries read from the outbox, those that can be sent. A row the queue's job schema
 * refuses (a date outside SUPPORTED_DATES written before the bounds existed, or a hand edit such as
 * a user id of 0) can never be queued or sent: it is logged, marked failed with the reason, and
 * left out. So one bad row never stops a loop over many users' entries (the sweep, resume and
 * drop on Connect and Disconnect) at the entries after it, and the sweeper stops picking it.
 */
export async function setAsideUnsendableEntries(
  { db, logger, clock }: OutboxLoopDependencies,
  entries: DirtyEntry[],
): Promise<OutboxKey[]> {
  const sendable: OutboxKey[] = [];
  for (const entry of entries) {
    const reason = unsendableReason(entry);
    if (reason === undefined) {
      sendable.push(entry);
      continue;
    }
    logger.warn({ userId: entry.userId, kind: entry.kind, subject: entry.subject, version: entry.version }, 'outbox entry cannot be sent; marked failed');
    await markFailed(db, entry, entry.version, { problem: 'unsendable', text: reason }, clock());
  }
  return sendable;
}

/** Why an entry can never be queued, or undefined when it can: the job schema decides, as it does at the enqueue. */
function unsendableReason(entry: DirtyEntry): string | undefined {
  const parsed = entryJobSchema.safeParse(entry);
  if (parsed.success) return undefined;
  const subjectIssue = parsed.error.issues.find((issue) => issue.path[0] === 'subject');
  if (subjectIssue) return `Not sent: "${entry.subject}" ${subjectIssue.message}.`;
  return `Not sent: user id ${String(entry.userId)} is not a positive whole number.`;
}
