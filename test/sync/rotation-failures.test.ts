import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { addDays, localToday } from '../../src/dates/local-today.js';
import type { ServiceApi } from '../../src/provider/api.js';
import { ServiceError } from '../../src/provider/service-error.js';
import { connectedPerson } from '../helpers/history.js';
import { importDays } from '../helpers/kinds.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { startSync, type RunningSync } from '../helpers/sync-worker.js';
import { eventually } from '../helpers/wait.js';

/**
 * The head of the rotation (src/sync/rotation.ts) when some people's turns keep failing, with far
 * more people than its head: two in-process workers, a head of a few people, and the service (or
 * the app's own code) failing for some of them.
 */

let stack: Stack;
const syncs: RunningSync[] = [];

afterEach(async () => {
  await Promise.all(syncs.splice(0).map((sync) => sync.close()));
  await stack.close();
});

/** What the service does with one person's upserts. */
type Behaviour = 'send' | 'unavailable' | 'bug';

/** Every upsert attempted, per user id, with when it was attempted. */
type Attempts = Map<number, number[]>;

/** The real API, its upserts counted per person and, for some people, failing as `behaviourOf` says. */
function serviceApiFor(real: ServiceApi, attempts: Attempts, behaviourOf: (userId: number) => Behaviour): ServiceApi {
  return {
    ...real,
    postJson: async (userId, path, body) => {
      attempts.set(userId, [...(attempts.get(userId) ?? []), Date.now()]);
      const behaviour = behaviourOf(userId);
      if (behaviour === 'unavailable') throw new ServiceError('retryable', 'HTTP 503: temporarily_unavailable');
      // Not the service's answer: a bug in a kind's sender for this person's records, say.
      if (behaviour === 'bug') throw new TypeError("Cannot read properties of undefined (reading 'date')");
      await real.postJson(userId, path, body);
    },
  };
}

/** `count` people connected and each with an import of `days` days, in this order; their user ids. */
async function peopleWithImports(count: number, days: number): Promise<number[]> {
  const today = localToday(new Date(), 'Europe/Berlin');
  const writes = Array.from({ length: days }, (_, index) => ({ date: addDays(today, -1 - index), n: 1 }));
  const ids: number[] = [];
  for (let person = 0; person < count; person++) {
    const { client, email } = await connectedPerson(stack, `P${person}`);
    await importDays(client, writes);
    const { id } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    ids.push(id);
  }
  return ids;
}

/** Those of these people whose history still waits. */
async function peopleWithHistoryWaiting(people: number[]): Promise<number[]> {
  const rows = await stack.db.selectFrom('histories').select('user_id').where('user_id', 'in', people).execute();
  return rows.map((row) => row.user_id);
}

async function startWorkers(count: number, api: ServiceApi, options: { rotationHeadSize: number; concurrency: number }): Promise<void> {
  for (let worker = 0; worker < count; worker++) syncs.push(await startSync(stack, stack.sendDependencies(api), undefined, options));
}

/** Upserts attempted for these people between `from` and `to`. */
function attemptsBetween(attempts: Attempts, people: number[], from: number, to: number): number[] {
  return people.map((userId) => (attempts.get(userId) ?? []).filter((at) => at >= from && at < to).length);
}

function sum(counts: number[]): number {
  return counts.reduce((total, count) => total + count, 0);
}

const FAST = { ATHLETE_RATE_LIMIT_PER_S: '2000' };
/** How long the failing people's attempts are counted, their backoff doubling from 1 s. */
const FAILING_WINDOW_MS = 10_000;

describe('the head of the rotation, when some people’s turns keep failing', () => {
  it('people whose turns throw (not a service error) do not hold its places against everyone else', async () => {
    stack = await startStack({ env: FAST });
    const people = await peopleWithImports(16, 150);
    const [buggy, others] = [people.slice(0, 4), people.slice(4)];
    const attempts: Attempts = new Map();
    await startWorkers(
      2,
      serviceApiFor(stack.serviceApi(), attempts, (userId) => (buggy.includes(userId) ? 'bug' : 'send')),
      {
        rotationHeadSize: 4,
        concurrency: 8,
      },
    );
    // Each person's first turn was queued at their import; from then on the head is what is queued.
    await sleep(4000);
    const from = Date.now();
    // Twelve people with history waiting and a rate of 2,000 a second: every one of them goes on
    // sending, each within 6 s.
    await eventually(
      'each of the others to send within 6 s',
      async () => (attemptsBetween(attempts, others, from, Date.now()).every((count) => count > 0) ? true : undefined),
      6000,
    );
    expect(await peopleWithHistoryWaiting(others)).toHaveLength(others.length);
  }, 90_000);

  it('with a head of 4 and a quarter of the people failing every upsert, the others share history’s turns evenly', async () => {
    stack = await startStack({ env: { ATHLETE_RATE_LIMIT_PER_S: '200' } });
    const people = await peopleWithImports(16, 400);
    const [failing, others] = [people.slice(0, 4), people.slice(4)];
    const attempts: Attempts = new Map();
    const api = serviceApiFor(stack.serviceApi(), attempts, (userId) => (failing.includes(userId) ? 'unavailable' : 'send'));
    await startWorkers(2, api, { rotationHeadSize: 4, concurrency: 8 });
    await sleep(3000);
    const from = Date.now();
    // The share is measured over an amount of work rather than of time: on a busy machine a fixed
    // window holds a few turns a person, and one turn more or less would be half the median.
    await eventually(
      'the others to send 100 days each on average',
      async () => (sum(attemptsBetween(attempts, others, from, Date.now())) >= 100 * others.length ? true : undefined),
      60_000,
    );
    await sleep(Math.max(0, from + FAILING_WINDOW_MS - Date.now()));
    const to = Date.now();
    const sent = attemptsBetween(attempts, others, from, to);
    const failed = attemptsBetween(attempts, failing, from, from + FAILING_WINDOW_MS);
    expect(await peopleWithHistoryWaiting(others)).toHaveLength(others.length);
    expect(sum(sent)).toBeGreaterThan(0);
    // Each of the others had at least half of what the median had (measured: 100 to 150 a person, about 160 a second in all).
    const median = [...sent].sort((a, b) => a - b)[Math.floor(sent.length / 2)]!;
    expect(Math.min(...sent)).toBeGreaterThanOrEqual(median / 2);
    expect(failed.every((count) => count <= 8)).toBe(true);
  }, 120_000);
});
