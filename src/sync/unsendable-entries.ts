import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { markFailed, type DirtyEntry } from './outbox.js';
import { subjectSchemaOf } from './sync-kinds.js';

export interface OutboxLoopDependencies {
  db: Db;
  logger: Logger;
  clock: () => Date;
}

/**
 * Of dirty entries read from the outbox, those that can be sent. A row the service can never be
 * sent (a date outside SUPPORTED_DATES written before the bounds existed, or by a hand edit) is
 * logged, marked failed with the reason, and left out: one bad row never stops a turn at the
 * entries after it, and no turn picks it again.
 */
export async function setAsideUnsendableEntries(
  { db, logger, clock }: OutboxLoopDependencies,
  entries: DirtyEntry[],
): Promise<DirtyEntry[]> {
  const sendable: DirtyEntry[] = [];
  for (const entry of entries) {
    const reason = unsendableReason(entry);
    if (reason === undefined) {
      sendable.push(entry);
      continue;
    }
    logger.warn(
      { userId: entry.userId, kind: entry.kind, subject: entry.subject, version: entry.version },
      'outbox entry cannot be sent; marked failed',
    );
    await markFailed(db, entry, entry.version, { problem: 'unsendable', text: reason }, clock());
  }
  return sendable;
}

/** Why an entry can never be sent, or undefined when it can: its kind's subject schema decides. */
function unsendableReason({ kind, subject }: DirtyEntry): string | undefined {
  const schema = subjectSchemaOf(kind);
  if (!schema) return `Not sent: this version of the app sends no "${kind}".`;
  const issue = schema.safeParse(subject).error?.issues[0];
  return issue && `Not sent: "${subject}" ${issue.message}.`;
}
