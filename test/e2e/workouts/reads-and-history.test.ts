import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { localToday } from '../../../src/dates/local-today.js';
import { arrivalsOf, connectedPerson, type Person } from '../../helpers/history.js';
import { CookieClient } from '../../helpers/http-client.js';
import { writeDay } from '../../helpers/kinds.js';
import { eachInOrder, type Running } from '../../helpers/processes.js';
import { startStack, type Stack } from '../../helpers/stack.js';
import { eventually } from '../../helpers/wait.js';
import { startWebEntryPoint, type WebProcess } from '../../helpers/web-process.js';
import { startWorkerEntryPoint } from '../../helpers/worker-process.js';

/**
 * People reading their workouts as fast as they can, against the history and the changes of
 * others, with a real web process, a real worker and the sandbox over HTTP: reads take a bounded
 * share of the one request budget, so another person's history keeps most of the rate, and a
 * change of now still goes first.
 */

const RATE_PER_S = 10;
const QUIET_MS = 1000;
const HISTORY_DAYS = 30;
const PASSWORD = 'a long password';

let stack: Stack | undefined;
let web: WebProcess | undefined;
let worker: Running | undefined;

afterEach(async () => {
  await eachInOrder(
    () => web?.running.stop('SIGTERM'),
    () => worker?.stop('SIGTERM'),
    () => stack?.close(),
  );
  [stack, web, worker] = [undefined, undefined, undefined];
});

/** The person signed in on the web process, as their second client. */
async function signedInOn(process: WebProcess, person: Person): Promise<CookieClient> {
  const client = new CookieClient(process.url);
  expect((await client.postJson('/api/login', { email: person.email, password: PASSWORD })).status).toBe(200);
  return client;
}

/** The requests to the service's API the sandbox has answered so far; token requests take no share of the budget. */
async function serviceRequests(stack: Stack): Promise<number> {
  const { requests } = (await stack.sandboxState()).counters;
  return Object.entries(requests)
    .filter(([endpoint]) => !endpoint.includes('/oauth/'))
    .flatMap(([, byStatus]) => Object.values(byStatus))
    .reduce((sum, count) => sum + count, 0);
}

/** Lists the workouts again as soon as each answer is in, until `stopped()`; the statuses answered. */
async function listInLoop(client: CookieClient, stopped: () => boolean): Promise<number[]> {
  const statuses: number[] = [];
  while (!stopped()) {
    const response = await client.get('/api/workouts');
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

describe('reads of the service beside history and changes of now', () => {
  it.each([
    ['the default settings', {}],
    // Every list asks the service, as many people's lists would: the reads' share of the budget alone.
    ['no recent list answered again and no per-person rate', { WORKOUTS_CACHE_S: '0', WORKOUTS_READS_PER_PERSON_PER_MINUTE: '600' }],
  ])(
    'with %s: three people listing their workouts in two loops each leave another’s 30-day history at least half of the requests sent meanwhile, and a change of now goes first',
    async (_, reads: Record<string, string>) => {
      const rate = { ATHLETE_RATE_LIMIT_PER_S: String(RATE_PER_S) };
      stack = await startStack({ env: { ...rate, ...reads } });
      const readers = [await connectedPerson(stack, 'R1'), await connectedPerson(stack, 'R2'), await connectedPerson(stack, 'R3')];
      const changer = await connectedPerson(stack, 'F');
      [web, worker] = await Promise.all([
        startWebEntryPoint(stack, { ...rate, ...reads }),
        startWorkerEntryPoint(stack, { ...rate, SYNC_QUIET_MS: String(QUIET_MS) }),
      ]);

      let stopped = false;
      const readerClients = await Promise.all(readers.map((reader) => signedInOn(web!, reader)));
      const loops = readerClients.flatMap((client) => [listInLoop(client, () => stopped), listInLoop(client, () => stopped)]);
      try {
        await sleep(1000);
        const sentBefore = await serviceRequests(stack);
        await connectedPerson(stack, 'H', HISTORY_DAYS);
        await writeDay(changer.client, localToday(new Date(), 'Europe/Berlin'));
        const posted = Date.now();

        const changeArrived = await eventually('F’s change to reach the service', async () => (await arrivalsOf(stack!, 'F'))[0]);
        await eventually('H’s whole history to reach the service', async () =>
          (await arrivalsOf(stack!, 'H')).length === HISTORY_DAYS ? true : undefined,
        );
        const sentMeanwhile = (await serviceRequests(stack)) - sentBefore;

        // Reads take at most a quarter of the rate (ATHLETE_READ_SHARE), and with the default
        // settings far less (a person's list is answered again for 10 s, and 6 a minute ask the
        // service): the history has the rest, three quarters or more. Asked for: half of the
        // requests sent meanwhile, counted rather than timed, so that a machine too busy to send
        // at the full rate asks H for half of what it did send.
        expect(HISTORY_DAYS / sentMeanwhile).toBeGreaterThanOrEqual(1 / 2);
        expect(changeArrived - posted - QUIET_MS).toBeLessThan(1000);
      } finally {
        stopped = true;
      }
      const statuses = (await Promise.all(loops)).flat();
      expect(statuses.length).toBeGreaterThan(0);
      // A list, fresh, again or the last one; or, before a person has any, 503 while reads have had their share.
      expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([]);
    },
    120_000,
  );
});
