import { capabilityOf, hasCapability } from '../connections/capabilities.js';
import { findConnection, withdrawScope, type Connection } from '../connections/connection.repository.js';
import type { Db } from '../db/database.js';
import { ServiceError } from '../provider/service-error.js';
import { dirtyVersion, forgetGoneEntry, markFailed, markSynced, recordPendingReason, type OutboxKey, type SyncFailure } from './outbox.js';
import type { Senders } from './sender.js';
import { problemOf } from './sync-problem.js';

export interface SendEntryDependencies {
  db: Db;
  clock: () => Date;
  /** Each kind's sender (senders.ts). */
  senders: Senders;
}

export type SendEntryOutcome = 'clean' | 'synced' | 'changed-meanwhile' | 'waiting-for-connection' | 'failed' | 'gone';

export const WAITING_FOR_CONNECTION = 'Waiting for the connection to the Athlete Data Service (Connect or Reconnect).';
const CONNECTION_MISSING: SyncFailure = { problem: 'needs-connection', text: WAITING_FOR_CONNECTION };

/**
 * Sends one dirty entry to the service: its whole record, rebuilt from the store now. The version
 * is read before the record, so an edit racing this job is either in the record or leaves the
 * entry dirty for the next run. Permanent refusals mark the entry failed; retryable failures are
 * thrown for the turn to retry; entries of users who cannot be synced now wait, still dirty.
 */
export async function sendEntry(deps: SendEntryDependencies, key: OutboxKey, known?: Connection): Promise<SendEntryOutcome> {
  const { db, clock, senders } = deps;
  const version = await dirtyVersion(db, key);
  if (version === undefined) return 'clean';

  // A turn passes the connection it read when it began, moments ago; a grant withdrawn since is
  // refused at the token or by the service, and handled below as any refusal is.
  const connection = known ?? (await findConnection(db, key.userId));
  if (connection?.status !== 'connected' || !hasCapability(connection.scopes, key.kind)) {
    await recordPendingReason(db, key, CONNECTION_MISSING, clock());
    return 'waiting-for-connection';
  }

  const sender = senders[key.kind];
  // The outbox is read for the kinds this version sends (sync-kinds.ts), and each has its sender.
  if (!sender) throw new Error(`no sender for the kind "${key.kind}"`);
  try {
    if ((await sender.send(key)) === 'gone') {
      await forgetGoneEntry(db, key, version);
      return 'gone';
    }
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const failure = error.kind === 'needs-reconnect' ? CONNECTION_MISSING : { problem: problemOf(error), text: error.message };
    if (error.kind === 'permanent') {
      await markFailed(db, key, version, failure, clock());
      return 'failed';
    }
    await recordPendingReason(db, key, failure, clock());
    if (error.kind === 'retryable') throw error;
    // Without this the sweeper would send the kind again and again, to be refused each time.
    const scope = capabilityOf(key.kind)?.scope;
    if (error.missingScope && scope) await withdrawScope(db, key.userId, scope, clock());
    return 'waiting-for-connection';
  }
  if (!(await markSynced(db, key, version, clock()))) return 'changed-meanwhile';
  await sender.afterSynced?.(key);
  return 'synced';
}
