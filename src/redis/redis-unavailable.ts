// ioredis (queues, locks, the web's producer connection) has no classes for these, only messages.
const IOREDIS_UNAVAILABLE_MESSAGES = new Set([
  "Stream isn't writeable and enableOfflineQueue options is false",
  "Cluster isn't ready and enableOfflineQueue options is false",
  'Connection is closed.',
  // commandTimeout: connected, but no reply (createProducerConnection).
  'Command timed out',
]);

/** socketTimeout: the connection dropped after no data came for a command ("Socket timeout. Expecting data, …"). */
const IOREDIS_SOCKET_TIMEOUT = /^Socket timeout\. /;

/**
 * What ioredis reports through Sentinel each time it has been round the sentinels without reaching
 * a primary, whether or not they answered (they name one that does not, during a failover).
 */
const SENTINELS_ASKED_IN_VAIN = 'All sentinels are unreachable';

/**
 * True for what ioredis, or the socket under it, throws while the server cannot be reached; the
 * session store's node-redis has its own (web/session-store-unavailable.ts), kept apart so that
 * the worker does not load node-redis. A command Redis answered with an error is not among them.
 */
export function isRedisUnavailable(error: unknown): boolean {
  return (
    error instanceof Error &&
    (IOREDIS_UNAVAILABLE_MESSAGES.has(error.message) ||
      IOREDIS_SOCKET_TIMEOUT.test(error.message) ||
      error.message.startsWith(SENTINELS_ASKED_IN_VAIN) ||
      error.name === 'MaxRetriesPerRequestError' ||
      isSocketError(error))
  );
}

/** The socket's own failure (connect ECONNREFUSED, read ECONNRESET, …): Node names the call that failed. */
function isSocketError(error: Error): boolean {
  return 'syscall' in error && typeof error.syscall === 'string';
}
