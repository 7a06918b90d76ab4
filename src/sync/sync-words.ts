import { DateTime } from 'luxon';
import type { SyncFacts, SyncState } from './sync-statuses.js';

/** Where an entry's sync stands, in the person's words: a headline, and the raw facts for a "details" disclosure. */
export interface SyncWords {
  state: SyncState;
  headline: string;
  details: string[];
}

/** Below this a wait is said in seconds ("in about 30 s"), above it in luxon's relative words. */
const SECONDS_SHOWN_BELOW_S = 90;
const JUST_NOW_MS = 60_000;

/**
 * Whether the person's entries can be sent now: they are connected, never were or disconnected
 * since, or their connection needs reconnecting. What waits says what it waits for.
 */
export type SyncReach = 'connected' | 'not-connected' | 'needs-reconnect';

/** The one place that turns an entry's sync status into words; every page and the overview use it. */
export function describeSync(facts: SyncFacts, timezone: string, now: Date, reach: SyncReach): SyncWords {
  const details = facts.error ? [`Reason recorded: ${facts.error}`] : [];
  if (facts.status === 'synced') {
    const sentAt = DateTime.fromISO(facts.syncedAt!).setZone(timezone);
    return {
      state: 'synced',
      headline: `Sent ${agoWords(sentAt, now)}`,
      details: [`Sent at ${sentAt.toFormat('d LLL yyyy, HH:mm:ss')} (${timezone}) as version ${String(facts.syncedVersion)}.`],
    };
  }
  if (facts.status === 'failed') {
    // The service's answer is for developers: it stays in the details, under plain words.
    const headline = facts.problem === 'unsendable' ? (facts.error ?? 'Not sent') : 'Refused by the service';
    return { state: 'failed', headline, details: ['It is tried again when the entry next changes.', ...details] };
  }
  if (reach === 'not-connected') {
    return { state: 'pending', headline: 'Waiting for a connection', details: [NOT_CONNECTED, ...details] };
  }
  if (reach === 'needs-reconnect') return { state: 'pending', headline: 'Waiting for you to reconnect', details };
  return { state: 'pending', headline: waitingWords(facts, now), details };
}

const NOT_CONNECTED = 'Nothing is sent while you are not connected to the Athlete Data Service: connect on the dashboard to send it.';

function waitingWords({ problem, error, nextAttemptAt }: SyncFacts, now: Date): string {
  const nextTry = `next try ${nextTryWords(nextAttemptAt, now)}`;
  switch (problem) {
    case undefined:
      // An entry not tried yet, or one whose failure was recorded before its kind was.
      return error === undefined ? 'Waiting to be sent' : `Waiting: the last try failed, ${nextTry}`;
    case 'needs-connection':
      return 'Waiting for you to reconnect';
    case 'service-busy':
      return `Waiting: the service is busy, ${nextTry}`;
    case 'no-answer':
      return `Waiting: the service did not answer, ${nextTry}`;
    case 'held-here':
      return `Waiting: held up on our side, ${nextTry}`;
    // Only a failed entry is refused or unsendable; a change clears both, and then it is tried again.
    case 'refused':
    case 'unsendable':
      return `Waiting: the last try failed, ${nextTry}`;
  }
}

/** "just now" within a minute (and for a clock a little ahead of this one), else "2 minutes ago", "3 days ago". */
function agoWords(at: DateTime, now: Date): string {
  if (now.getTime() - at.toMillis() < JUST_NOW_MS) return 'just now';
  return at.toRelative({ base: DateTime.fromJSDate(now) }) ?? 'just now';
}

/** "in about 30 s", "in 5 minutes", or "soon" when the queue's schedule is not known or already due. */
function nextTryWords(nextAttemptAt: string | undefined, now: Date): string {
  const waitS = nextAttemptAt === undefined ? 0 : Math.ceil((Date.parse(nextAttemptAt) - now.getTime()) / 1000);
  if (waitS <= 0) return 'soon';
  if (waitS < SECONDS_SHOWN_BELOW_S) return `in about ${String(waitS)} s`;
  return DateTime.fromISO(nextAttemptAt!).toRelative({ base: DateTime.fromJSDate(now) }) ?? 'soon';
}
