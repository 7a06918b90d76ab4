import { ClientClosedError, ClientOfflineError, ConnectionTimeoutError, SocketClosedUnexpectedlyError } from 'redis';

/** True for what node-redis (the session store's client) throws while Redis cannot be reached. */
export function isSessionStoreUnavailable(error: unknown): boolean {
  return (
    error instanceof ClientClosedError ||
    error instanceof ClientOfflineError ||
    error instanceof ConnectionTimeoutError ||
    error instanceof SocketClosedUnexpectedlyError
  );
}
