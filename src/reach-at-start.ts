import { setTimeout as sleep } from 'node:timers/promises';
import { beforeDeadline, TIMED_OUT } from './deadline.js';
import { StartupError } from './errors.js';

/** A server a process needs before it can start, and how long it may wait for it (STARTUP_TIMEOUT_S). */
export interface StartupTarget {
  /** As the line names it: "Redis", "the database". */
  what: string;
  /** Where it is: a URL, or the URLs of the nodes it is reached through. */
  url: string | string[];
  timeoutS: number;
}

export class UnreachableAtStartError extends StartupError {
  override name = 'UnreachableAtStartError';

  constructor(target: StartupTarget, reason: unknown) {
    super(
      `Cannot reach ${target.what} at ${[target.url].flat().map(withoutPassword).join(', ')} within ${target.timeoutS} s (STARTUP_TIMEOUT_S): ${messageOf(reason)}`,
    );
  }
}

const FIRST_PAUSE_MS = 100;
const LONGEST_PAUSE_MS = 1000;

/**
 * Runs `attempt` again, quietly and with a short backoff, while it fails as `isUnreachable` says;
 * past the timeout (an attempt that hangs is cut off there too) the start ends with one line
 * naming the target and the last failure. Any other failure ends it at once.
 */
export async function retryUntilReachable<T>(
  target: StartupTarget,
  attempt: () => Promise<T>,
  isUnreachable: (error: unknown) => boolean,
): Promise<T> {
  const deadline = Date.now() + target.timeoutS * 1000;
  let lastError: unknown = 'no answer';
  for (let pauseMs = FIRST_PAUSE_MS; ; pauseMs = Math.min(2 * pauseMs, LONGEST_PAUSE_MS)) {
    const tried = attempt().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    const outcome = await beforeDeadline(tried, deadline);
    if (outcome === TIMED_OUT) break;
    if ('value' in outcome) return outcome.value;
    if (!isUnreachable(outcome.error)) throw outcome.error;
    lastError = outcome.error;
    if (Date.now() >= deadline) break;
    await sleep(Math.min(pauseMs, deadline - Date.now()));
  }
  throw new UnreachableAtStartError(target, lastError);
}

/** The URL as a log line or an error message may show it. */
export function withoutPassword(url: string): string {
  const parsed = new URL(url);
  parsed.password = '';
  return parsed.href;
}

function messageOf(reason: unknown): string {
  if (!(reason instanceof Error)) return String(reason);
  // DatabaseUnreachableError and its kind wrap what the driver said.
  return reason.cause instanceof Error ? reason.cause.message : reason.message;
}
