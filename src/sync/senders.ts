import { SYNCED_KINDS } from '../kinds.js';
import type { KindWorkerDependencies } from '../kinds/kind.js';
import type { Senders } from './sender.js';

/** Each synced kind's sender (src/kinds.ts), built with what the worker has: the only kind-specific part of the sync path. */
export function createSenders(deps: KindWorkerDependencies): Senders {
  return Object.fromEntries(SYNCED_KINDS.map((kind) => [kind.name, kind.sync.sender(deps)]));
}
