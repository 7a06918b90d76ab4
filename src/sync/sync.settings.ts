import { setting, settingGroup } from '../config/setting.js';
import { wholePositive, wholeUpTo } from '../config/value-schemas.js';

/** How the workers send: the quiet before a change goes, the sweeps, the tries, the turns each runs at once. */
export const syncSettings = settingGroup({
  readBy: 'worker',
  settings: {
    SYNC_QUIET_MS: setting({
      schema: wholePositive('milliseconds, e.g. 5000'),
      default: '5000',
      meaning: 'How long a person must leave a day (or activity) alone before their change is sent; a burst of edits makes one upsert.',
    }),
    SYNC_SWEEP_INTERVAL_MS: setting({
      schema: wholePositive('milliseconds, e.g. 30000'),
      default: '30000',
      meaning:
        'How often the sweeper makes sure the people at the head of the history rotation (its first 1,000) have a turn queued; it does so sooner once fewer than half of them wait in the queue. A Redis that lost the queue (restarted empty, flushed) is noticed sooner, within about a second: each worker looks for it every second, and the queue is then built again from the store (see [Redis](production.md)).',
    }),
    // One change every two seconds for a whole minute: more than anyone makes by hand, far fewer than a script.
    SYNC_FRESH_PER_PERSON_PER_MINUTE: setting({
      schema: wholeUpTo(60_000, 'a number of changes up to 60000, e.g. 30'),
      default: '30',
      meaning:
        "A person's changes of now sent ahead of everyone's history in a minute, every worker process together (counted in Redis). Past it, their further changes that minute wait as their history and go in their history turns, sharing the rate equally with everyone else's, so a script replaying days through the single-item API slows only its own sync. People editing by hand make a few a minute. At most 60000 ([the shares](architecture.md#4-who-waits-when-the-budget-is-short-two-lanes-turns-one-budget)).",
    }),
    SYNC_ATTEMPTS: setting({
      schema: wholePositive('a number of attempts, e.g. 8'),
      default: '8',
      meaning:
        "Tries a change of now gets for retryable failures (backoff from 1 s, doubling, with jitter) before it waits with the person's history, which keeps trying (backoff up to 10 minutes).",
    }),
    WORKER_CONCURRENCY: setting({
      schema: wholePositive('a number of jobs, e.g. 16'),
      default: '16',
      meaning:
        'Turns one worker process runs at once in each lane (fresh and history): each mostly waits for the service or the budget, so many keep the process busy.',
    }),
    WORKER_LOCK_DURATION_MS: setting({
      schema: wholePositive('milliseconds, e.g. 5000'),
      default: '5000',
      meaning:
        "How long a running turn's lock (BullMQ's) outlives a worker that stopped renewing it, killed or frozen: another worker takes the turn up within about one and a half times this (BullMQ's stalled-job check runs every half of it), 7.5 s by default. A worker whose event loop stalls this long loses its turns to others; the person's requests still go one at a time (see [how a turn is taken up](architecture.md#4-who-waits-when-the-budget-is-short-two-lanes-turns-one-budget)).",
    }),
  },
  read: (values) => ({
    sync: {
      quietMs: values.SYNC_QUIET_MS,
      sweepIntervalMs: values.SYNC_SWEEP_INTERVAL_MS,
      attempts: values.SYNC_ATTEMPTS,
      freshPerPersonPerMinute: values.SYNC_FRESH_PER_PERSON_PER_MINUTE,
      concurrency: values.WORKER_CONCURRENCY,
      lockDurationMs: values.WORKER_LOCK_DURATION_MS,
    },
  }),
});
