import type { User } from '../accounts/user.table.js';
import { effectiveStatus } from '../connections/connection-health.js';
import { findConnection, type Connection } from '../connections/connection.repository.js';
import type { Db } from '../db/database.js';
import type { SyncFacts } from './sync-statuses.js';
import { describeSync, type SyncReach, type SyncWords } from './sync-words.js';

export type DescribeSync = (facts: SyncFacts) => SyncWords;

/** Whether a person with this connection (none: never connected, or disconnected since) can have entries sent now. */
export function syncReachOf(connection: Connection | undefined, now: Date): SyncReach {
  if (connection === undefined) return 'not-connected';
  return effectiveStatus(connection, now) === 'connected' ? 'connected' : 'needs-reconnect';
}

/** How a page says where the person's entries stand: in their zone, as of now, and with what their connection allows. */
export async function syncDescriberFor(db: Db, user: Pick<User, 'id' | 'timezone'>, now: Date): Promise<DescribeSync> {
  const reach = syncReachOf(await findConnection(db, user.id), now);
  return (facts) => describeSync(facts, user.timezone, now, reach);
}
