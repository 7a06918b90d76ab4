import { Gauge, type Registry } from 'prom-client';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { waitingEntries } from '../sync/outbox.js';
import { LANES, type SyncQueues } from '../sync/queue.js';
import { SYNC_KINDS, type SyncKind } from '../sync/sync-kinds.js';
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
 * Work that waits, read when Prometheus scrapes (one grouped query of the outbox, one call to
 * Redis), never kept up to date in between. A source that does not answer leaves its gauges
 * empty for that scrape, so the rest of the scrape still arrives.
 */
export function observeWaitingWork(registry: Registry, { db, queues, clock, logger }: WorkGaugeSources): void {
  const registers = [registry];
  // Both outbox gauges are collected at once in a scrape: they share one query.
  let outboxRead: ReturnType<typeof waitingEntries> | undefined;
  const readOutbox = () => (outboxRead ??= waitingEntries(db).finally(() => (outboxRead = undefined)));
  const waitingOf = async (kind: SyncKind) => (await readOutbox()).find((row) => row.kind === kind);

  new Gauge({
    name: `${METRIC_PREFIX}outbox_entries_waiting`,
    help: 'Outbox entries (days, activities) changed and not yet in the service, by kind (including those waiting for a reconnect).',
    labelNames: ['kind'],
    registers,
    async collect() {
      await readInto(this, 'outbox', async () => {
        for (const kind of SYNC_KINDS) this.set({ kind }, (await waitingOf(kind))?.entries ?? 0);
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
        for (const kind of SYNC_KINDS) {
          const oldest = (await waitingOf(kind))?.oldestChange;
          this.set({ kind }, oldest ? Math.max(0, (clock().getTime() - oldest.getTime()) / 1000) : 0);
        }
      });
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}queue_jobs`,
    help: "Jobs (people's turns) in the sync queues, by lane (fresh, backfill) and state.",
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
