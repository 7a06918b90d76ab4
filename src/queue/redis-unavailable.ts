import { ClientClosedError, ClientOfflineError, ConnectionTimeoutError, SocketClosedUnexpectedlyError } from 'redis';

// ioredis (queues, locks, the web's producer connection) has no classes for these, only messages.
const IOREDIS_UNAVAILABLE_MESSAGES = new Set([
  "Stream isn't writeable and enableOfflineQueue options is false",
  'Connection is closed.',
]);

/**
 * True for what the two Redis clients throw while the server cannot be reached: node-redis
 * (the session store) and ioredis, or the socket under them. A command Redis answered with an
 * error is not among them.
 */
export function isRedisUnavailable(error: unknown): boolean {
  return (
    error instanceof ClientClosedError ||
    error instanceof ClientOfflineError ||
    error instanceof ConnectionTimeoutError ||
    error instanceof SocketClosedUnexpectedlyError ||
    (error instanceof Error &&
      (IOREDIS_UNAVAILABLE_MESSAGES.has(error.message) || error.name === 'MaxRetriesPerRequestError' || isSocketError(error)))
  );
}

/** The socket's own failure (connect ECONNREFUSED, read ECONNRESET, …): Node names the call that failed. */
function isSocketError(error: Error): boolean {
  return 'syscall' in error && typeof error.syscall === 'string';
}
