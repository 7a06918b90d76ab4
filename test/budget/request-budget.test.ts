import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createRedisConnection } from '../../src/redis/redis.js';
import { redisServer } from '../../src/redis/redis-target.js';
import { createRequestBudget, type BudgetLane, type RequestBudget } from '../../src/budget/request-budget.js';
import { testRedisPrefix } from '../helpers/redis-keys.js';

const connections = Array.from({ length: 3 }, () => createRedisConnection(redisServer(inject('redisUrl'))));

afterAll(() => {
  for (const connection of connections) connection.disconnect();
});

/** One budget as each of three processes would hold it: each on its own connection, sharing the keys. */
function budgetsOfThreeProcesses(ratePerS: number): RequestBudget[] {
  const prefix = testRedisPrefix();
  return connections.map((redis) => createRequestBudget({ redis, prefix, ratePerS }));
}

async function takeAndRelease(budget: RequestBudget, lane: BudgetLane, userId: number): Promise<number> {
  const permit = await budget.take(lane, userId);
  const grantedAt = performance.now();
  await permit!.release();
  return grantedAt;
}

describe('the request budget', () => {
  it('spaces the requests of every process to the rate, whatever their number', async () => {
    const budgets = budgetsOfThreeProcesses(20);
    const started = performance.now();
    const grants = await Promise.all(Array.from({ length: 30 }, (_, index) => takeAndRelease(budgets[index % 3]!, 'history', index + 1)));
    // 30 slots 50 ms apart: the last starts 1.45 s after the first, however fast the machine.
    expect(Math.max(...grants) - started).toBeGreaterThanOrEqual(1400);
  });

  it('keeps reads, however many, to a quarter of the slots while history waits, and gives history the rest', async () => {
    const budgets = budgetsOfThreeProcesses(40);
    const grants: Array<{ lane: BudgetLane; at: number }> = [];
    let stop = false;
    // Readers with a deadline, as the workouts list asks: twelve at once, on every process.
    const readers = budgets.flatMap((budget, process) =>
      [1, 2, 3, 4].map(async (reader) => {
        for (let user = 10_000 * (4 * process + reader); !stop; user++) {
          const permit = await budget.takeWithin('read', user, 3000);
          if (permit) grants.push({ lane: 'read', at: performance.now() });
          await permit?.release();
        }
      }),
    );
    const history = budgets.map(async (budget, process) => {
      for (let user = 1000 * (process + 1); !stop; user++)
        grants.push({ lane: 'history', at: await takeAndRelease(budget, 'history', user) });
    });
    const from = performance.now() + 500;
    await new Promise((resolve) => setTimeout(resolve, 2500));
    stop = true;
    await Promise.all([...readers, ...history]);
    const inWindow = (lane: BudgetLane) => grants.filter((grant) => grant.lane === lane && grant.at > from && grant.at <= from + 2000);
    // Two seconds of 40 slots: reads at most a quarter of them (20, and one either end), history the
    // rest; reads book one slot further than history, so history waiting does not keep them from their share.
    expect(inWindow('read').length).toBeLessThanOrEqual(22);
    expect(inWindow('read').length).toBeGreaterThanOrEqual(10);
    expect(inWindow('history').length).toBeGreaterThanOrEqual(40);
  });

  it.each([
    // History books no more than the next slot, so a fresh request has at most that one ahead of it.
    ['the history', ['history'], 2],
    // A read books one slot further: a fresh request has at most a slot or two of both ahead of it.
    ['the reads and the history', ['read', 'history'], 3],
  ] as const)('grants a fresh request ahead of %s waiting for the same slots', async (_, lanes, mostAhead) => {
    const budgets = budgetsOfThreeProcesses(20);
    const othersGranted: number[] = [];
    let stop = false;
    // Every process keeps the budget busy: four loops each, taking slots as soon as they may.
    const loops = budgets.flatMap((budget, process) =>
      [1, 2, 3, 4].map(async (turn) => {
        const lane = lanes[turn % lanes.length]!;
        for (let user = 1000 * (4 * process + turn); !stop; user++) {
          const permit = await budget.takeWithin(lane, user, 3000);
          if (permit) othersGranted.push(performance.now());
          await permit?.release();
        }
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const asked = performance.now();
    const freshGranted = await takeAndRelease(budgets[0]!, 'fresh', 1);
    stop = true;
    await Promise.all(loops);
    expect(othersGranted.filter((at) => at > asked && at < freshGranted).length).toBeLessThanOrEqual(mostAhead);
    expect(othersGranted.length).toBeGreaterThan(10);
  });

  it('serves history in the order it began waiting, whichever process asks', async () => {
    const budgets = budgetsOfThreeProcesses(50);
    await budgets[0]!.pause(400);
    const granted: number[] = [];
    const waiters = [];
    for (let user = 1; user <= 12; user++) {
      waiters.push(budgets[user % 3]!.take('history', user).then((permit) => (granted.push(user), permit!.release())));
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    await Promise.all(waiters);
    // Those within the next slot or so of each other may book in either order; none jumps further.
    const displacements = granted.map((user, place) => Math.abs(user - (place + 1)));
    expect(Math.max(...displacements)).toBeLessThanOrEqual(1);
  });

  it('drops from the line history whose process died, and history that stopped waiting', async () => {
    const prefix = testRedisPrefix();
    const holder = createRedisConnection(redisServer(inject('redisUrl')));
    const living = createRequestBudget({ redis: connections[1]!, prefix, ratePerS: 1000, waiterTtlMs: 400 });
    const dying = createRequestBudget({ redis: holder, prefix, ratePerS: 1000, waiterTtlMs: 400 });
    await living.pause(200);
    const lost = dying.take('history', 20).catch(() => 'connection closed');
    await new Promise((resolve) => setTimeout(resolve, 50));
    holder.disconnect();
    const started = performance.now();
    await (await living.take('history', 21))!.release();
    expect(performance.now() - started).toBeLessThan(1500);
    expect(await lost).toBe('connection closed');

    const patient = createRequestBudget({ redis: connections[2]!, prefix, ratePerS: 1000, waiterTtlMs: 60_000 });
    await patient.pause(300);
    expect(await patient.takeWithin('history', 22, 100)).toBeUndefined();
    const asked = performance.now();
    await (await patient.take('history', 23))!.release();
    expect(performance.now() - asked).toBeLessThan(1500);
  });

  it('lets one request of a person be in flight at a time, across lanes and processes; history gives way', async () => {
    const [first, second] = budgetsOfThreeProcesses(1000);
    const events: string[] = [];
    const history = (await first!.take('history', 7))!;
    // The person's history waits for nothing of theirs: it gives way, and its turn comes back.
    expect(await second!.take('history', 7)).toBeUndefined();
    const fresh = second!.take('fresh', 7).then((permit) => {
      events.push('fresh granted');
      return permit;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    events.push('history released');
    await history.release();
    await (await fresh).release();
    expect(events).toEqual(['history released', 'fresh granted']);
    // Another person is not held up meanwhile.
    await (await first!.take('history', 8))!.release();
  });

  it('keeps a person’s lock while its request runs, however long, and frees it soon after its holder dies', async () => {
    const prefix = testRedisPrefix();
    const holder = createRedisConnection(redisServer(inject('redisUrl')));
    const living = createRequestBudget({ redis: connections[1]!, prefix, ratePerS: 1000, lockTtlMs: 1000 });
    const dying = createRequestBudget({ redis: holder, prefix, ratePerS: 1000, lockTtlMs: 1000 });
    const slow = (await living.take('history', 9))!;
    const waiting = dying.take('fresh', 9);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(await Promise.race([waiting.then(() => 'granted'), Promise.resolve('still waiting')])).toBe('still waiting');
    await slow.release();
    await (await waiting).release();

    // A holder whose process dies: its renewals stop with its connection.
    await dying.take('history', 10);
    holder.disconnect();
    const started = performance.now();
    await (await living.take('fresh', 10)).release();
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('holds every lane of every process for a pause the service asked for (429 Retry-After)', async () => {
    const [first, second] = budgetsOfThreeProcesses(1000);
    await first!.pause(400);
    const asked = performance.now();
    await (await second!.take('fresh', 1)).release();
    expect(performance.now() - asked).toBeGreaterThanOrEqual(350);
  });

  it('gives a reader with a deadline no permit when a pause outlasts it, and one when the pause ends within it', async () => {
    const [first, second] = budgetsOfThreeProcesses(1000);
    await first!.pause(1500);
    expect(await second!.takeWithin('fresh', 1, 300)).toBeUndefined();
    const permit = await second!.takeWithin('fresh', 2, 10_000);
    expect(permit).toBeDefined();
    await permit!.release();
  });

  it('gives a reader with a deadline no permit while the person’s other request outlasts it', async () => {
    const [first, second] = budgetsOfThreeProcesses(1000);
    const other = await first!.take('fresh', 3);
    expect(await second!.takeWithin('fresh', 3, 300)).toBeUndefined();
    await other.release();
    const permit = await second!.takeWithin('fresh', 3, 10_000);
    expect(permit).toBeDefined();
    await permit!.release();
  });
});
