import type { Stack } from './stack.js';
import { eventually } from './wait.js';

/** Resolves once the stack's app answers /readyz with 200, e.g. after its Redis was restarted. */
export async function untilReady(stack: Stack): Promise<void> {
  await eventually('the app to be ready', async () => ((await fetch(`${stack.appUrl}/readyz`)).ok ? true : undefined), 10_000);
}
