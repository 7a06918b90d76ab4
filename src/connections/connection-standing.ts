import { effectiveStatus } from './connection-health.js';
import type { Connection } from './connection.repository.js';

/**
 * What is still true of a person's connection when a Connect attempt ends without connecting:
 * a denied or spent attempt leaves an earlier approval as it was, and the page must say so.
 */
export interface Standing {
  kind: 'not_connected' | 'connected' | 'needs_reconnect';
  words: string;
  /** The label of the button that starts a new attempt. */
  tryAgain: 'Connect' | 'Reconnect';
}

export function connectionStanding(connection: Connection | undefined, now: Date): Standing {
  if (connection === undefined) {
    return { kind: 'not_connected', words: 'You are not connected.', tryAgain: 'Connect' };
  }
  if (effectiveStatus(connection, now) === 'connected') {
    return { kind: 'connected', words: 'You are still connected with your earlier approval.', tryAgain: 'Reconnect' };
  }
  return {
    kind: 'needs_reconnect',
    words: 'Your earlier connection still needs reconnecting; syncing stays paused until you reconnect.',
    tryAgain: 'Reconnect',
  };
}
