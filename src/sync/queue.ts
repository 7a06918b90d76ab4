import { Queue, type ConnectionOptions, type JobsOptions } from 'bullmq';
import { z } from 'zod';
import type { OutboxKey } from './outbox.js';
import { SUBJECT_SCHEMAS, SYNC_KINDS } from './sync-kinds.js';

/** One queue for all sync work; its keys live under REDIS_PREFIX like every key the app writes. */
export const SYNC_QUEUE = 'sync';

export const JOB = { syncEntry: 'sync-entry', sweep: 'sweep-dirty-days', keepAlive: 'keep-connections-alive' } as const;

/** How often idle connections are checked for a keep-alive refresh (connections/keep-alive.ts). */
const KEEP_ALIVE_INTERVAL_MS = 60 * 60 * 1000;

/** Job data comes back from Redis: parsed like any other input from outside, the subject by its kind's schema. */
export const entryJobSchema = z
  .object({
    userId: z.number().int().positive(),
    kind: z.enum(SYNC_KINDS),
    subject: z.string(),
  })
  .superRefine(({ kind, subject }, context) => {
    const parsed = SUBJECT_SCHEMAS[kind].safeParse(subject);
    for (const issue of parsed.error?.issues ?? []) context.addIssue({ code: 'custom', message: issue.message, path: ['subject'] });
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
      // 5xx, timeouts, resets: exponential backoff with jitter (docs/architecture.md, decision 6).
      backoff: { type: 'exponential', delay: 1000, jitter: 0.5 },
      removeOnComplete: { count: 1000 },
      removeOnFail: { count: 5000 },
    },
  });
}

/** Custom ids and deduplication ids may not contain ':' (BullMQ). */
function entryJobKey(key: OutboxKey): string {
  return `${key.kind}-${key.userId}-${key.subject}`;
}

/**
 * After a change: one job per entry, run `quietMs` after the last change of a burst (debounce).
 * A change while the entry's job is running queues exactly one more run after it.
 */
export async function enqueueChangedEntry(queue: Queue, key: OutboxKey, quietMs: number): Promise<void> {
  const { name, data, opts } = entryJob(key, {
    delay: quietMs,
    deduplication: { id: entryJobKey(key), reschedule: true, keepLastIfActive: true },
  });
  await queue.add(name, data, opts);
}

/**
 * From the sweeper and on Connect: at once, unless a job for the entry is already waiting or
 * running. In one round trip: a sweep can hand over a thousand entries while the workers drain.
 */
export async function enqueueSweptEntries(queue: Queue, keys: OutboxKey[]): Promise<void> {
  if (keys.length === 0) return;
  await queue.addBulk(keys.map((key) => entryJob(key, { deduplication: { id: entryJobKey(key) } })));
}

function entryJob(key: OutboxKey, opts: JobsOptions) {
  return { name: JOB.syncEntry, data: entryJobSchema.parse(key), opts };
}

/**
 * The repeating jobs, each run once per interval whatever the number of worker processes (BullMQ
 * job schedulers): the sweep every SYNC_SWEEP_INTERVAL_MS, the keep-alive every hour.
 */
export async function scheduleRepeatingJobs(queue: Queue, sweepIntervalMs: number): Promise<void> {
  await queue.upsertJobScheduler(JOB.sweep, { every: sweepIntervalMs }, { name: JOB.sweep, opts: { attempts: 1 } });
  await queue.upsertJobScheduler(JOB.keepAlive, { every: KEEP_ALIVE_INTERVAL_MS }, { name: JOB.keepAlive, opts: { attempts: 1 } });
}

/** Drops the user's queued jobs (on Disconnect); their entries stay dirty in the outbox. */
export async function removeQueuedEntries(queue: Queue, keys: OutboxKey[]): Promise<void> {
  for (const key of keys) {
    const jobId = await queue.getDeduplicationJobId(entryJobKey(key));
    // A running job cannot be removed; its key must stay, or a second job for the entry could start
    // beside it. It will find no connection when it asks for a token, and end.
    if (jobId && (await queue.remove(jobId)) === 1) await queue.removeDeduplicationKey(entryJobKey(key));
  }
}
