import { ClientClosedError, ClientOfflineError, ConnectionTimeoutError, SocketClosedUnexpectedlyError, SocketTimeoutError } from 'redis';
import { SessionStoreTimeoutError } from './session-store-deadline.js';

/** True for what node-redis (the session store's client), or the store's deadline, throws while Redis cannot be reached or is silent. */
export function isSessionStoreUnavailable(error: unknown): boolean {
  return (
    error instanceof ClientClosedError ||
    error instanceof ClientOfflineError ||
    error instanceof ConnectionTimeoutError ||
    error instanceof SocketClosedUnexpectedlyError ||
    error instanceof SocketTimeoutError ||
    error instanceof SessionStoreTimeoutError
  );
}
