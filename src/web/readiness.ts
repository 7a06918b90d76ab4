import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';

/** Longer than a query may wait behind busy writers (db/sqlite-dialect.ts, db/postgres-dialect.ts), short for a probe. */
const CHECK_TIMEOUT_MS = 2000;

/** A dependency's check: resolves when it answers. */
export type ReadinessChecks = Record<string, () => Promise<unknown>>;

/**
 * `GET /readyz`: 200 `{ ok: true }` when every dependency answers in time, else 503
 * `{ ok: false, failing }` naming those that did not. `/healthz` stays the liveness check that
 * touches nothing, so an outage of Redis makes the process unready, not restarted.
 */
export function readinessCheck(checks: ReadinessChecks, logger: Logger): RequestHandler {
  return async (_req, res) => {
    const results = await Promise.all(
      Object.entries(checks).map(async ([name, check]) => {
        try {
          await answerWithin(check, CHECK_TIMEOUT_MS);
          return { name, ok: true };
        } catch (error) {
          logger.warn({ err: error, check: name }, 'readiness check failed');
          return { name, ok: false };
        }
      }),
    );
    const failing = results.filter((result) => !result.ok).map((result) => result.name);
    if (failing.length === 0) res.json({ ok: true });
    else res.status(503).json({ ok: false, failing });
  };
}

async function answerWithin(check: () => Promise<unknown>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([check(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
