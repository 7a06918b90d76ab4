import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { observeWaitingWork, WAITING_READ_KEPT_MS } from '../../src/observability/work-gauges.js';
import { markDirty } from '../../src/sync/outbox.js';
import { syncKinds } from '../../src/sync/sync-kinds.js';
import { recordingStatements } from '../../src/dev/recorded-statements.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

/** A worker's scrape-time gauges over a store that records what they ask it, on a clock the test moves. */
async function gauges() {
  stack = await startStack();
  const recording = recordingStatements(stack.db);
  const clock = { now: Date.parse('2026-11-20T12:00:00Z') };
  const registry = new Registry();
  observeWaitingWork(registry, {
    db: recording.db,
    queues: stack.syncQueues,
    clock: () => new Date(clock.now),
    logger: createLogger('silent'),
  });
  return {
    registry,
    clock,
    countReads: () => recording.on('outbox_waiting_counts').length,
    outboxReads: () => recording.on('outbox').length,
  };
}

describe('the waiting-work gauges', () => {
  it('read the kept counts once per scrape for every kind and both outbox gauges, and the outbox not at all when nothing waits', async () => {
    const { registry, countReads, outboxReads } = await gauges();
    expect(syncKinds().length).toBeGreaterThan(1);
    const text = await registry.metrics();
    for (const kind of syncKinds()) {
      expect(text).toContain(`athlete_sync_outbox_entries_waiting{kind="${kind}"} 0`);
      expect(text).toContain(`athlete_sync_outbox_oldest_waiting_seconds{kind="${kind}"} 0`);
    }
    expect(countReads()).toBe(1);
    expect(outboxReads()).toBe(0);
  });

  it('read the outbox only for the oldest waiting entry of each kind that has one, through the index of waiting entries', async () => {
    const { registry, clock, countReads, outboxReads } = await gauges();
    const [kind, otherKind] = syncKinds();
    const changedAt = new Date(clock.now - 90_000);
    const { id: userId } = await stack.db
      .insertInto('users')
      .values({ email: 'waiting@example.com', password_hash: 'x', timezone: 'UTC', created_at: changedAt.toISOString() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await markDirty(stack.db, { userId, kind: kind!, subject: '2026-11-19' }, changedAt);
    await markDirty(stack.db, { userId, kind: kind!, subject: '2026-11-20' }, new Date(clock.now));
    const text = await registry.metrics();
    expect(text).toContain(`athlete_sync_outbox_entries_waiting{kind="${kind}"} 2`);
    expect(text).toContain(`athlete_sync_outbox_oldest_waiting_seconds{kind="${kind}"} 90`);
    expect(text).toContain(`athlete_sync_outbox_entries_waiting{kind="${otherKind}"} 0`);
    expect([countReads(), outboxReads()]).toEqual([1, 1]);
  });

  it('answer scrapes within WAITING_READ_KEPT_MS of a read from it, and read again after', async () => {
    const { registry, clock, countReads } = await gauges();
    await Promise.all([registry.metrics(), registry.metrics()]);
    clock.now += WAITING_READ_KEPT_MS - 1;
    await registry.metrics();
    expect(countReads()).toBe(1);
    clock.now += 1;
    await registry.metrics();
    expect(countReads()).toBe(2);
  });
});
