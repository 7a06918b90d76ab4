import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { z } from 'zod';
import type { DayKey } from './outbox.js';

/** One queue for all sync work; its keys live under REDIS_PREFIX like every key the app writes. */
export const SYNC_QUEUE = 'sync';

export const JOB = { syncDay: 'sync-day', sweep: 'sweep-dirty-days' } as const;

/** Job data comes back from Redis: parsed like any other input from outside. */
export const dayJobSchema = z.object({
  userId: z.number().int().positive(),
  kind: z.enum(['nutrition', 'wellness']),
  date: z.iso.date(),
});

export interface SyncQueueSettings {
  connection: ConnectionOptions;
  prefix: string;
  attempts: number;
}

export function createSyncQueue({ connection, prefix, attempts }: SyncQueueSettings): Queue {
  return new Queue(SYNC_QUEUE, {
    connection,
    prefix,
    defaultJobOptions: {
      attempts,
      // 5xx, timeouts, resets: exponential backoff with jitter (DESIGN, decision 6).
      backoff: { type: 'exponential', delay: 1000, jitter: 0.5 },
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 5000 },
    },
  });
}

/** Custom ids and deduplication ids may not contain ':' (BullMQ). */
export function dayJobKey(day: DayKey): string {
  return `${day.kind}-${day.userId}-${day.date}`;
}

/**
 * After a change: one job per day, run `quietMs` after the last change of a burst (debounce).
 * A change while the day's job is running queues exactly one more run after it.
 */
export async function enqueueChangedDay(queue: Queue, day: DayKey, quietMs: number): Promise<void> {
  await addDayJob(queue, day, {
    delay: quietMs,
    deduplication: { id: dayJobKey(day), reschedule: true, keepLastIfActive: true },
  });
}

/** From the sweeper: at once, unless a job for the day is already waiting or running. */
export async function enqueueSweptDay(queue: Queue, day: DayKey): Promise<void> {
  await addDayJob(queue, day, { deduplication: { id: dayJobKey(day) } });
}

async function addDayJob(queue: Queue, day: DayKey, options: JobsOptions): Promise<void> {
  await queue.add(JOB.syncDay, dayJobSchema.parse(day), options);
}

/** Every SYNC_SWEEP_INTERVAL_MS, whatever the number of worker processes (a BullMQ job scheduler). */
export async function scheduleSweeps(queue: Queue, intervalMs: number): Promise<void> {
  await queue.upsertJobScheduler(JOB.sweep, { every: intervalMs }, { name: JOB.sweep, opts: { attempts: 1 } });
}

/** Drops the user's queued day jobs (on Disconnect); their days stay dirty in the outbox. */
export async function removeQueuedDays(queue: Queue, days: DayKey[]): Promise<void> {
  for (const day of days) {
    const jobId = await queue.getDeduplicationJobId(dayJobKey(day));
    if (jobId) await queue.remove(jobId);
    await queue.removeDeduplicationKey(dayJobKey(day));
  }
}
