import { performance } from 'node:perf_hooks';
import { setTimeout as sleepFor } from 'node:timers/promises';
import { ServiceError } from '../provider/service-error.js';
import { underPermit, type Permit } from '../budget/request-budget.js';

/**
 * How long a read a person waits for may keep trying: a few tries within a short deadline, with a
 * backoff between them that doubles and is jittered, so that many readers failed by one blip do not
 * all ask again at the same moment.
 */
export interface ReadRetryPolicy {
  /** From the first permit asked for to the last answer waited for. */
  deadlineMs: number;
  maxTries: number;
  /** The backoff after the first failure: it doubles after each, and jitter takes it to between half and all of that. */
  firstBackoffMs: number;
}

/** A page a person is looking at: past about 3 s, the last list known serves them better than more waiting. */
export const READ_RETRY_POLICY: ReadRetryPolicy = { deadlineMs: 3000, maxTries: 4, firstBackoffMs: 100 };

export interface ReadRetryDependencies {
  /** A permit of the request budget for a try that starts within `withinMs`; undefined when none can. */
  permit(withinMs: number): Promise<Permit | undefined>;
  /** The service asked every client of ours to wait (429 Retry-After), the workers too. */
  pause(ms: number): Promise<void>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** A draw in [0, 1) for the jitter. */
  random?: () => number;
}

/** The answer, or the last failure (none when no try could start within the deadline). */
export type ReadResult<T> = { ok: true; value: T } | { ok: false; error: ServiceError | undefined };

/**
 * Runs `read` until it succeeds, fails for good (permanent, needs-reconnect), or the policy's tries or
 * deadline run out. Each try takes its own permit of the budget; `read` is given the time left, to
 * bound its request by. A wait that would end past the deadline (a backoff, a Retry-After, the next
 * slot of the budget) is not waited: the result is the failure so far.
 */
export async function readWithRetries<T>(
  policy: ReadRetryPolicy,
  deps: ReadRetryDependencies,
  read: (timeoutMs: number) => Promise<T>,
): Promise<ReadResult<T>> {
  const { now = () => performance.now(), sleep = (ms: number) => sleepFor(ms), random = Math.random } = deps;
  const deadline = now() + policy.deadlineMs;
  let lastError: ServiceError | undefined;
  for (let tries = 1; tries <= policy.maxTries; tries++) {
    const permit = await deps.permit(deadline - now());
    if (!permit) break;
    try {
      return { ok: true, value: await underPermit(permit, () => read(deadline - now())) };
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      lastError = error;
    }
    if (lastError.retryAfterMs !== undefined) await deps.pause(lastError.retryAfterMs);
    if (lastError.kind !== 'retryable' || tries === policy.maxTries) break;
    const waitMs = lastError.retryAfterMs ?? backoffMs(policy, tries, random());
    if (now() + waitMs >= deadline) break;
    await sleep(waitMs);
  }
  return { ok: false, error: lastError };
}

/** The wait after `failures` failed tries: between half and all of the doubled backoff, by `draw` in [0, 1). */
export function backoffMs(policy: ReadRetryPolicy, failures: number, draw: number): number {
  const ceiling = policy.firstBackoffMs * 2 ** (failures - 1);
  return ceiling / 2 + (draw * ceiling) / 2;
}
