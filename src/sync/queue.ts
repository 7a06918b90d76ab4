import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { z } from 'zod';
import { calendarDateSchema } from '../dates/supported-dates.js';
import type { DayKey } from './outbox.js';
import { SYNC_KINDS } from './sync-day.table.js';

/** One queue for all sync work; its keys live under REDIS_PREFIX like every key the app writes. */
export const SYNC_QUEUE = 'sync';

export const JOB = { syncDay: 'sync-day', sweep: 'sweep-dirty-days', keepAlive: 'keep-connections-alive' } as const;

/** How often idle connections are checked for a keep-alive refresh (connections/keep-alive.ts). */
const KEEP_ALIVE_INTERVAL_MS = 60 * 60 * 1000;

/** Job data comes back from Redis: parsed like any other input from outside. */
export const dayJobSchema = z.object({
  userId: z.number().int().positive(),
  kind: z.enum(SYNC_KINDS),
  date: calendarDateSchema,
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

/**
 * The repeating jobs, each run once per interval whatever the number of worker processes (BullMQ
 * job schedulers): the sweep every SYNC_SWEEP_INTERVAL_MS, the keep-alive every hour.
 */
export async function scheduleRepeatingJobs(queue: Queue, sweepIntervalMs: number): Promise<void> {
  await queue.upsertJobScheduler(JOB.sweep, { every: sweepIntervalMs }, { name: JOB.sweep, opts: { attempts: 1 } });
  await queue.upsertJobScheduler(JOB.keepAlive, { every: KEEP_ALIVE_INTERVAL_MS }, { name: JOB.keepAlive, opts: { attempts: 1 } });
}

/** Drops the user's queued day jobs (on Disconnect); their days stay dirty in the outbox. */
export async function removeQueuedDays(queue: Queue, days: DayKey[]): Promise<void> {
  for (const day of days) {
    const jobId = await queue.getDeduplicationJobId(dayJobKey(day));
    // A running job cannot be removed; its key must stay, or a second job for the day could start
    // beside it. It will find no connection when it asks for a token, and end.
    if (jobId && (await queue.remove(jobId)) === 1) await queue.removeDeduplicationKey(dayJobKey(day));
  }
}
