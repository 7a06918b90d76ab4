import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { waitingEntries } from '../sync/sync-statuses.js';
import { LANES, type SyncQueues } from '../sync/queue.js';
import { syncKinds } from '../sync/sync-kinds.js';
import { METRIC_PREFIX } from './metrics.js';

export interface WorkGaugeSources {
  db: Db;
  queues: SyncQueues;
  clock: () => Date;
  logger: Logger;
}

/** The queue's job states that make up its depth. */
const QUEUE_STATES = ['waiting', 'prioritized', 'delayed', 'active', 'failed'] as const;

/**
 * How long one read of the waiting entries answers the scrapes: the outbox gauges of one scrape, and
 * any scrape within it (several Prometheus servers, a retried scrape), share it, so that scraping
 * costs the store at most one read of its index of waiting entries every few seconds.
 */
export const WAITING_READ_KEPT_MS = 5000;

/**
 * Work that waits, read when Prometheus scrapes (one grouped query of the outbox for every kind,
 * one call to Redis), never kept up to date in between. A source that does not answer leaves its
 * gauges empty for that scrape, so the rest of the scrape still arrives.
 */
export function observeWaitingWork(registry: Registry, { db, queues, clock, logger }: WorkGaugeSources): void {
  const registers = [registry];
  const readWaiting = keptFor(WAITING_READ_KEPT_MS, clock, () => waitingEntries(db));
  const waitingByKind = async () => {
    const rows = await readWaiting();
    return syncKinds().map((kind) => ({ kind, waiting: rows.find((row) => row.kind === kind) }));
  };

  new Gauge({
    name: `${METRIC_PREFIX}outbox_entries_waiting`,
    help: 'Outbox entries changed and not yet in the service, by kind (including those waiting for a reconnect).',
    labelNames: ['kind'],
    registers,
    async collect() {
      await readInto(this, 'outbox', async () => {
        for (const { kind, waiting } of await waitingByKind()) this.set({ kind }, waiting?.entries ?? 0);
      });
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}outbox_oldest_waiting_seconds`,
    help: 'Seconds since the longest-waiting entry last changed, by kind; 0 when none waits.',
    labelNames: ['kind'],
    registers,
    async collect() {
      await readInto(this, 'outbox', async () => {
        for (const { kind, waiting } of await waitingByKind()) {
          const oldest = waiting?.oldestChange;
          this.set({ kind }, oldest ? Math.max(0, (clock().getTime() - oldest.getTime()) / 1000) : 0);
        }
      });
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}queue_jobs`,
    help: "Jobs (people's turns) in the sync queues, by lane (fresh, history) and state.",
    labelNames: ['lane', 'state'],
    registers,
    async collect() {
      await readInto(this, 'queue', async () => {
        for (const lane of LANES) {
          const counts = await queues[lane].getJobCounts(...QUEUE_STATES);
          for (const state of QUEUE_STATES) this.set({ lane, state }, counts[state] ?? 0);
        }
      });
    },
  });

  async function readInto(gauge: Gauge, source: string, read: () => Promise<void>): Promise<void> {
    try {
      await read();
    } catch (error) {
      gauge.reset();
      logger.warn({ err: error, source }, 'metrics: could not read waiting work');
    }
  }
}

/**
 * `read`, answered from its last result for `keptMs` after that result arrived; callers meanwhile
 * share the read under way. A failed read is not kept: the next caller reads again.
 */
function keptFor<T>(keptMs: number, clock: () => Date, read: () => Promise<T>): () => Promise<T> {
  let kept: { value: Promise<T>; until: number } | undefined;
  return () => {
    if (kept && clock().getTime() < kept.until) return kept.value;
    const reading = { value: read(), until: Number.POSITIVE_INFINITY };
    kept = reading;
    reading.value.then(
      () => (reading.until = clock().getTime() + keptMs),
      () => {
        if (kept === reading) kept = undefined;
      },
    );
    return reading.value;
  };
}
