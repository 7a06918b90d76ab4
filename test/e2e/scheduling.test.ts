import { afterEach, describe, expect, it } from 'vitest';
import { localToday } from '../../src/dates/local-today.js';
import { arrivalsOf, connectedPerson } from '../helpers/history.js';
import { serviceDays, writeDay } from '../helpers/kinds.js';
import type { Running } from '../helpers/processes.js';
import { DisposableRedis } from '../helpers/redis-server.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { startWorkerEntryPoint } from '../helpers/worker-process.js';

/**
 * Who waits when the request budget is short, with real worker processes against the sandbox: a
 * person's change of now goes ahead of any history, and people with history share the rate.
 */

const RATE_PER_S = 10;
const QUIET_MS = 1000;
/** How long two histories are watched sharing the rate, from half a second after the second one began: about 25 days each. */
const SHARING_MS = 5000;
/**
 * C's history: more than the whole rate could send of it by the sharing window's end (55 days), so
 * it is still waiting throughout, even if it were not sharing; each day more is one more to write and send.
 */
const C_DAYS = 100;
const PASSWORD = 'a long password';

let stack: Stack;
let redis: DisposableRedis | undefined;
const workers: Running[] = [];

afterEach(async () => {
  await stopWorkers();
  await stack.close();
  await redis?.stop();
  redis = undefined;
});

async function stopWorkers(): Promise<void> {
  await Promise.all(workers.splice(0).map((worker) => worker.stop('SIGTERM')));
}

async function startWorkers(count: number, ratePerS: number): Promise<void> {
  const env = { ATHLETE_RATE_LIMIT_PER_S: String(ratePerS), SYNC_QUIET_MS: String(QUIET_MS) };
  workers.push(...(await Promise.all(Array.from({ length: count }, () => startWorkerEntryPoint(stack, env)))));
}

const ATHLETES = ['A', 'B', 'C'];

/** When the sandbox first received each day of each athlete: a day of history is upserted once. */
async function arrivals(): Promise<Map<string, number[]>> {
  return new Map(await Promise.all(ATHLETES.map(async (athlete) => [athlete, await arrivalsOf(stack, athlete)] as const)));
}

async function arrivedCount(athlete: string): Promise<number> {
  return (await arrivalsOf(stack, athlete)).length;
}

/** The most requests the sandbox received in any window of `windowMs`. */
function busiestWindow(times: number[], windowMs: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let first = 0, last = 0; last < sorted.length; last++) {
    while (sorted[last]! - sorted[first]! >= windowMs) first++;
    most = Math.max(most, last - first + 1);
  }
  return most;
}

describe('who waits when the request budget is short', () => {
  it.each([
    ['one worker process', 1, false],
    ['two worker processes', 2, false],
    ['Redis restarted empty mid-import', 1, true],
  ])(
    'with %s: a change of now goes ahead of a 600-day history, two histories share the rate, and every day arrives once',
    async (_, workerCount, restartRedis) => {
      redis = restartRedis ? await DisposableRedis.start() : undefined;
      stack = await startStack({ env: { ...(redis && { REDIS_URL: redis.url }) } });
      const b = await connectedPerson(stack, 'B');
      await startWorkers(workerCount, RATE_PER_S);

      await connectedPerson(stack, 'A', 600);
      await eventually('A’s history to reach the service', async () => ((await arrivedCount('A')) >= 5 ? true : undefined));
      if (redis) {
        await redis.stop();
        await redis.start();
        const before = await arrivedCount('A');
        await eventually('A’s history to go on after the restart', async () => ((await arrivedCount('A')) > before + 5 ? true : undefined));
        // Sessions lived in the lost Redis too.
        expect((await b.client.postJson('/api/login', { email: b.email, password: PASSWORD })).status).toBe(200);
      }

      await writeDay(b.client, localToday(new Date(), 'Europe/Berlin'));
      const posted = Date.now();
      const arrived = await eventually('B’s change to reach the service', async () => (await arrivals()).get('B')?.[0]);
      expect(arrived - posted - QUIET_MS).toBeLessThan(1000);

      await connectedPerson(stack, 'C', C_DAYS);
      const cStarted = await eventually(
        'C’s history to reach the service',
        async () => (await arrivals()).get('C')?.sort((x, y) => x - y)[0],
      );
      const [from, to] = [cStarted + 500, cStarted + 500 + SHARING_MS];
      // Arrival times are the sandbox's clock when it stores a day: once one is past the window, the window is complete.
      const sharing = await eventually('the sharing window to pass', async () => {
        const all = await arrivals();
        return [...all.values()].flat().some((at) => at > to) ? all : undefined;
      });
      const inWindow = (athlete: string) => sharing.get(athlete)!.filter((at) => at > from && at <= to).length;
      const [shareOfA, shareOfC] = [inWindow('A'), inWindow('C')];
      expect(Math.max(shareOfA, shareOfC) / Math.min(shareOfA, shareOfC)).toBeLessThanOrEqual(1.5);
      // Every process together kept to the rate (a day's arrival is one request); arrivals jitter
      // around their evenly spaced slots by a few milliseconds, hence one more at either end.
      expect(busiestWindow([...sharing.values()].flat(), 3000)).toBeLessThanOrEqual(3 * RATE_PER_S + 2);

      // The rest at a rate without limit, then every day exactly once.
      await stopWorkers();
      await startWorkers(workerCount, 100_000);
      await eventually(
        'every day of history to arrive',
        async () => ((await arrivedCount('A')) === 600 && (await arrivedCount('C')) === C_DAYS ? true : undefined),
        60_000,
      );
      for (const athlete of ATHLETES) {
        expect((await serviceDays(stack, athlete)).filter((day) => day.writes !== 1)).toEqual([]);
      }
    },
    150_000,
  );
});
