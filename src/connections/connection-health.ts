import type { Connection } from './connection.repository.js';
import type { StatusReason } from './connection.table.js';

/** What the keep-alive and the warnings read of a connection: its status and when its tokens were issued and expire. */
export type ConnectionTimes = Pick<Connection, 'status' | 'issuedAt' | 'refreshExpiresAt' | 'refreshLease'>;

/** Warn this long before the refresh token expires: the person must reconnect by then. */
const RECONNECT_WARNING_MS = 7 * 24 * 3600 * 1000;
/** Without a known refresh-token lifetime, refresh at least this often so it cannot lapse unused. */
const KEEP_ALIVE_WITHOUT_EXPIRY_MS = 7 * 24 * 3600 * 1000;

/** A connection past its refresh token's expiry needs reconnecting, whether or not anything noticed yet. */
export function effectiveStatus(connection: Pick<Connection, 'status' | 'refreshExpiresAt'>, now: Date): Connection['status'] {
  return refreshTokenExpired(connection, now) ? 'needs_reconnect' : connection.status;
}

/** Why the connection needs reconnecting; undefined when it does not, or was marked before reasons were kept. */
export function reconnectReason(connection: Connection, now: Date): StatusReason | undefined {
  if (connection.status === 'needs_reconnect') return connection.statusReason;
  return refreshTokenExpired(connection, now) ? 'refresh_token_expired' : undefined;
}

function refreshTokenExpired(connection: Pick<Connection, 'refreshExpiresAt'>, now: Date): boolean {
  return connection.refreshExpiresAt !== undefined && connection.refreshExpiresAt <= now;
}

/** When the person should be told that reconnecting will soon be needed (and nothing can prevent it). */
export function reconnectNeededSoon(connection: Pick<Connection, 'status' | 'refreshExpiresAt'>, now: Date): boolean {
  return (
    effectiveStatus(connection, now) === 'connected' &&
    connection.refreshExpiresAt !== undefined &&
    connection.refreshExpiresAt.getTime() - now.getTime() < RECONNECT_WARNING_MS
  );
}

/**
 * Whether a refresh's outcome is unknown: its lease ran out without the new tokens or a refusal
 * being stored (its process was killed, or its answer never came).
 */
export function refreshInterrupted(connection: Pick<Connection, 'refreshLease'>, now: Date): boolean {
  return connection.refreshLease !== undefined && connection.refreshLease.until <= now;
}

/**
 * Whether a connection nobody has used for a while should be refreshed now, so its refresh
 * token never lapses: halfway through a known refresh-token lifetime (measured from the last
 * refresh), or a week after the last refresh when the lifetime is unknown. A refresh that was
 * interrupted is settled at once: a reuse grace period does not last, and a refusal must be told.
 */
export function keepAliveDue(connection: ConnectionTimes, now: Date): boolean {
  if (effectiveStatus(connection, now) !== 'connected') return false;
  if (refreshInterrupted(connection, now)) return true;
  const lastRefresh = connection.issuedAt.getTime();
  const dueAt = connection.refreshExpiresAt
    ? lastRefresh + (connection.refreshExpiresAt.getTime() - lastRefresh) / 2
    : lastRefresh + KEEP_ALIVE_WITHOUT_EXPIRY_MS;
  return now.getTime() >= dueAt;
}
