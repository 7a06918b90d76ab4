import { describe, expect, it } from 'vitest';
import { retryUntilReachable, UnreachableAtStartError } from '../src/reach-at-start.js';

const target = { what: 'the database', url: 'postgres://app:hunter2@db.internal:5432/app', timeoutS: 1 };

class Unreachable extends Error {}
const isUnreachable = (error: unknown) => error instanceof Unreachable;

describe('retryUntilReachable', () => {
  it('tries again, quietly, until the server answers', async () => {
    let attempts = 0;
    const answer = await retryUntilReachable(
      target,
      async () => {
        attempts += 1;
        if (attempts < 3) throw new Unreachable('connect ECONNREFUSED');
        return 'answered';
      },
      isUnreachable,
    );
    expect(answer).toBe('answered');
    expect(attempts).toBe(3);
  });

  it('gives up after the timeout with one line: what, where without the password, and the last failure', async () => {
    const startedAt = Date.now();
    const reaching = retryUntilReachable(
      target,
      () => Promise.reject(new Unreachable('connect ECONNREFUSED 10.0.0.5:5432')),
      isUnreachable,
    );
    await expect(reaching).rejects.toThrow(UnreachableAtStartError);
    await expect(reaching).rejects.toThrow(
      'Cannot reach the database at postgres://app@db.internal:5432/app within 1 s (STARTUP_TIMEOUT_S): connect ECONNREFUSED 10.0.0.5:5432',
    );
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - startedAt).toBeLessThan(1500);
  });

  it('cuts off an attempt that hangs at the timeout', async () => {
    const startedAt = Date.now();
    const hanging = retryUntilReachable(target, () => new Promise(() => {}), isUnreachable);
    await expect(hanging).rejects.toThrow(/within 1 s \(STARTUP_TIMEOUT_S\): no answer$/);
    // Timers run by a clock of their own and Date.now() counts whole milliseconds: 1,000 ms can read as 999.
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(990);
    expect(Date.now() - startedAt).toBeLessThan(1500);
  });

  it('stops at once on any other failure', async () => {
    const refused = new Error('password authentication failed');
    await expect(retryUntilReachable(target, () => Promise.reject(refused), isUnreachable)).rejects.toBe(refused);
  });
});
