import { reconnectNeededSoon } from '../connections/connection-health.js';
import type { KeepAliveView } from '../connections/connection.repository.js';
import type { Db } from '../db/database.js';
import { recordIncident } from './notice.repository.js';

/**
 * Records an incident for each of these connections whose refresh token expires within a week (the
 * dashboard's warning, §2.1 refresh_token_expires_in): one per grant, since a refresh that keeps the
 * token's expiry (no rotation) changes nothing the person can do but reconnect.
 */
export async function noteGrantsExpiringSoon(db: Db, connections: readonly KeepAliveView[], now: Date): Promise<void> {
  for (const connection of connections) {
    if (!reconnectNeededSoon(connection, now)) continue;
    const detail = connection.refreshExpiresAt!.toISOString();
    await recordIncident(db, { userId: connection.userId, grantId: connection.grantId, kind: 'expiring', detail }, now);
  }
}
