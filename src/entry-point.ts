import { StartupError } from './errors.js';

/**
 * Runs an entry point's start-up; a failure stops the process with exit code 1.
 * A StartupError is one line a person can act on; anything else is a bug and keeps its stack.
 */
export function runEntryPoint(start: () => Promise<void>): void {
  start().catch((error: unknown) => {
    console.error(error instanceof StartupError ? error.message : error);
    process.exit(1);
  });
}

/** Calls `close` once on SIGINT or SIGTERM, then lets the process end. */
export function closeOnSignal(close: () => Promise<void>): void {
  let closing = false;
  const onSignal = () => {
    if (closing) return;
    closing = true;
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
}
