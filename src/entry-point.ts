import { DatabaseUnreachableError } from './db/database-unreachable-error.js';
import { StartupError } from './errors.js';
import type { Logger } from './logger.js';

/**
 * Runs an entry point's start-up; a failure stops the process with exit code 1.
 * A problem of the setting-up (a StartupError, such as a port already taken, or a database that
 * cannot be reached) is one line a person can act on; anything else is a bug and keeps its stack.
 */
export function runEntryPoint(start: () => Promise<void>): void {
  start().catch((error: unknown) => {
    console.error(oneLineFor(error) ?? error);
    process.exit(1);
  });
}

function oneLineFor(error: unknown): string | undefined {
  if (error instanceof StartupError || error instanceof DatabaseUnreachableError) return error.message;
  return undefined;
}

/** One part of a graceful stop: what it closes (the log names it if it never finishes) and how. */
export interface ShutdownStep {
  what: string;
  close: () => Promise<unknown> | void;
}

export interface ShutdownOptions {
  /** SHUTDOWN_TIMEOUT_MS: after this the process exits anyway. */
  timeoutMs: number;
  logger: Logger;
}

/**
 * Ctrl+C under `npm run` or tsx delivers the signal twice within milliseconds (to the whole
 * process group, and relayed by the parent); only a signal after this is a person's second one.
 */
const RELAYED_SIGNAL_WINDOW_MS = 1000;

/**
 * On SIGINT or SIGTERM, closes `steps` in order, then exits 0. A step that fails, a stop that
 * takes longer than `timeoutMs` (say, a worker waiting for a Redis that is down) or a second
 * signal exits 1 at once, with one log line naming the step it gave up on.
 */
export function closeOnSignal(steps: ShutdownStep[], { timeoutMs, logger }: ShutdownOptions): void {
  let firstSignalAt: number | undefined;
  let pending = 'nothing';

  const giveUp = (reason: string) => {
    logger.error({ pending }, `${reason}: gave up waiting for ${pending}`);
    process.exit(1);
  };

  const closeInOrder = async () => {
    for (const step of steps) {
      pending = step.what;
      await step.close();
    }
  };

  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt === undefined) {
      firstSignalAt = Date.now();
      logger.info({ signal }, 'shutting down');
      setTimeout(() => giveUp(`shutdown took longer than SHUTDOWN_TIMEOUT_MS (${timeoutMs} ms)`), timeoutMs);
      closeInOrder().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error, pending }, `shutdown failed while closing ${pending}`);
          process.exit(1);
        },
      );
    } else if (Date.now() - firstSignalAt >= RELAYED_SIGNAL_WINDOW_MS) {
      giveUp(`second ${signal}`);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
