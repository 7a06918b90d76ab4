import type { ServiceError } from '../provider/service-error.js';

/**
 * Why an entry is not in the service, recorded beside its raw reason (outbox.last_error) so that
 * pages describe it without reading that text (sync-words.ts):
 * - service-busy: the service answered with a failure worth retrying (5xx, 429, a 401 after refresh);
 * - no-answer: the request got no answer (reset, timeout, refused connection); retried;
 * - held-here: held up on this app's side before any request (its stored tokens wait for a key); retried;
 * - needs-connection: the person must Connect or Reconnect (or grant the kind's scope) first;
 * - refused: the service refused this version for good;
 * - unsendable: this app cannot send the entry at all (unsendable-entries.ts).
 */
export const SYNC_PROBLEMS = ['service-busy', 'no-answer', 'held-here', 'needs-connection', 'refused', 'unsendable'] as const;
export type SyncProblem = (typeof SYNC_PROBLEMS)[number];

/** A recorded word this version knows; a row written by a newer version may hold one it does not. */
export function isSyncProblem(word: string): word is SyncProblem {
  return (SYNC_PROBLEMS as readonly string[]).includes(word);
}

export function problemOf(error: ServiceError): SyncProblem {
  if (error.kind === 'permanent') return 'refused';
  if (error.kind === 'needs-reconnect') return 'needs-connection';
  if (error.heldHere) return 'held-here';
  return error.unanswered ? 'no-answer' : 'service-busy';
}
