import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/provider/service-error.js';
import { READ_RETRY_POLICY, backoffMs, readWithRetries, type ReadRetryPolicy } from '../../src/workouts/read-with-retries.js';

const POLICY: ReadRetryPolicy = { deadlineMs: 3000, maxTries: 4, firstBackoffMs: 100 };

const serverError = () => new ServiceError('retryable', 'HTTP 503: temporarily_unavailable');
const rateLimited = (retryAfterMs: number) => new ServiceError('retryable', 'HTTP 429: rate_limited', { retryAfterMs });

/**
 * A read under a clock that moves only when the policy sleeps or a try takes time: every wait and
 * every permit the policy asks for is recorded, and the budget grants a permit whenever asked.
 */
function simulated({ tryTakesMs = 0, slotInMs = 0, draw = 0.5 } = {}) {
  let clock = 0;
  const record = {
    sleeps: [] as number[],
    permitsAskedWithin: [] as number[],
    pauses: [] as number[],
    timeouts: [] as number[],
    released: 0,
  };
  const deps = {
    now: () => clock,
    sleep: async (ms: number) => {
      record.sleeps.push(ms);
      clock += ms;
    },
    random: () => draw,
    permit: async (withinMs: number) => {
      record.permitsAskedWithin.push(withinMs);
      if (slotInMs > withinMs) return undefined;
      clock += slotInMs;
      return { release: async () => void (record.released += 1) };
    },
    pause: async (ms: number) => void record.pauses.push(ms),
  };
  /** A read that meets each outcome in turn: an error is thrown, anything else answered. */
  const reading =
    (...outcomes: Array<Error | string>) =>
    async (timeoutMs: number) => {
      record.timeouts.push(timeoutMs);
      clock += tryTakesMs;
      const outcome = outcomes.shift() ?? 'no outcome left';
      if (outcome instanceof Error) throw outcome;
      return outcome;
    };
  return { deps, reading, record };
}

describe('reading within a deadline', () => {
  it('is about 3 s, at most 4 tries, backing off from 100 ms', () => {
    expect(READ_RETRY_POLICY).toEqual({ deadlineMs: 3000, maxTries: 4, firstBackoffMs: 100 });
  });

  it('answers at the first try that succeeds, each try under a permit of its own, released after', async () => {
    const { deps, reading, record } = simulated();
    const result = await readWithRetries(POLICY, deps, reading(serverError(), serverError(), 'the list'));
    expect(result).toEqual({ ok: true, value: 'the list' });
    expect(record.permitsAskedWithin).toHaveLength(3);
    expect(record.released).toBe(3);
  });

  it('stops after the policy’s tries and gives the last failure', async () => {
    const { deps, reading, record } = simulated();
    const last = serverError();
    const result = await readWithRetries(POLICY, deps, reading(serverError(), serverError(), serverError(), last, 'never read'));
    expect(result).toEqual({ ok: false, error: last });
    expect(record.timeouts).toHaveLength(4);
  });

  it('does not retry a refusal or a grant that needs reconnecting', async () => {
    for (const refusal of [new ServiceError('permanent', 'HTTP 400'), new ServiceError('needs-reconnect', 'insufficient_scope')]) {
      const { deps, reading, record } = simulated();
      expect(await readWithRetries(POLICY, deps, reading(refusal, 'never read'))).toEqual({ ok: false, error: refusal });
      expect(record.timeouts).toHaveLength(1);
    }
  });

  it('lets a programming error through', async () => {
    const { deps, reading } = simulated();
    await expect(readWithRetries(POLICY, deps, reading(new TypeError('a bug')))).rejects.toThrow('a bug');
  });

  it('gives each try the time left until the deadline, and tries no more once a backoff would end past it', async () => {
    // Each try takes 1.2 s (a slow service): after two, 0.6 s are left, and the third try gets them.
    const { deps, reading, record } = simulated({ tryTakesMs: 1200, draw: 0 });
    const result = await readWithRetries(POLICY, deps, reading(serverError(), serverError(), serverError(), 'too late'));
    expect(result.ok).toBe(false);
    expect(record.timeouts).toEqual([3000, 3000 - 1200 - 50, 3000 - 2 * 1200 - 50 - 100]);
    expect(record.sleeps).toEqual([50, 100]);
  });

  it('waits a Retry-After that fits within the deadline, and pauses the budget for everyone', async () => {
    const { deps, reading, record } = simulated();
    const result = await readWithRetries(POLICY, deps, reading(rateLimited(1000), 'the list'));
    expect(result).toEqual({ ok: true, value: 'the list' });
    expect(record.pauses).toEqual([1000]);
    expect(record.sleeps).toEqual([1000]);
  });

  it('stops at once on a Retry-After that does not fit, after pausing the budget for everyone', async () => {
    const { deps, reading, record } = simulated();
    const tooLong = rateLimited(7000);
    const result = await readWithRetries(POLICY, deps, reading(tooLong, 'never read'));
    expect(result).toEqual({ ok: false, error: tooLong });
    expect(record.pauses).toEqual([7000]);
    expect(record.sleeps).toEqual([]);
  });

  it('stops when the budget has no slot within the time left', async () => {
    // The budget's next slot is 2 s away each time: the first try fits; after it and a backoff of 75 ms, the second does not.
    const { deps, reading, record } = simulated({ slotInMs: 2000 });
    const failure = serverError();
    const result = await readWithRetries(POLICY, deps, reading(failure, 'never read'));
    expect(result).toEqual({ ok: false, error: failure });
    expect(record.timeouts).toHaveLength(1);
    expect(record.permitsAskedWithin).toEqual([3000, 3000 - 2000 - 75]);
  });

  it('makes no try, and has no failure to give, when no slot fits at all', async () => {
    const { deps, reading, record } = simulated({ slotInMs: 5000 });
    expect(await readWithRetries(POLICY, deps, reading('never read'))).toEqual({ ok: false, error: undefined });
    expect(record.timeouts).toEqual([]);
  });
});

describe('the backoff between tries', () => {
  it('doubles after each failure, jittered between half and all of it', () => {
    for (const [failures, ceiling] of [
      [1, 100],
      [2, 200],
      [3, 400],
    ] as const) {
      expect(backoffMs(POLICY, failures, 0)).toBe(ceiling / 2);
      expect(backoffMs(POLICY, failures, 0.999_999)).toBeCloseTo(ceiling, 2);
      for (let index = 0; index < 100; index++) {
        const wait = backoffMs(POLICY, failures, Math.random());
        expect(wait).toBeGreaterThanOrEqual(ceiling / 2);
        expect(wait).toBeLessThan(ceiling);
      }
    }
  });
});
