import { AsyncLocalStorage } from 'node:async_hooks';

/** What every log line written while handling one request, or running one job, carries. */
export type LogContext = { reqId: string } | { jobId: string };

/**
 * Loggers are built once per process and handed to parts that know nothing of requests or jobs
 * (AccessTokens, the day-change hint, the error handler); the logger reads the id from here, so
 * no part has to pass it along.
 */
const current = new AsyncLocalStorage<LogContext>();

export function withLogContext<T>(context: LogContext, run: () => T): T {
  return current.run(context, run);
}

/** A copy: pino merges each line's fields into the object it gets. */
export function logContext(): Partial<LogContext> {
  return { ...current.getStore() };
}
