import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { addDays, localToday } from '../../src/dates/local-today.js';
import { arrivalsOf, connectedPerson, type Person } from '../helpers/history.js';
import { serviceDays, workload, writeDay } from '../helpers/kinds.js';
import { eachInOrder, type Running } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { startWorkerEntryPoint } from '../helpers/worker-process.js';

/**
 * People writing a new day through the single-write API many times a second, as a script replaying
 * history would, against another person's history (logged before Connect) and a change of now, with a real worker and the
 * sandbox over HTTP: past SYNC_FRESH_PER_PERSON_PER_MINUTE their changes wait as their own
 * history, so the other history keeps its share of the rate, the change of now still goes first,
 * and every flooded day still arrives, once.
 */

const RATE_PER_S = 10;
const QUIET_MS = 1000;
const HISTORY_DAYS = 30;
/**
 * SYNC_FRESH_PER_PERSON_PER_MINUTE: a third of its default (30), still several times what anyone
 * makes by hand, so that the flooders' changes of now are sent, and the flood waits as history,
 * three times sooner. Every flooded day is one more to write and to send.
 */
const FRESH_PER_MINUTE = 10;
/** Each flooder writes a new day, then waits this long: together, several times the rate. */
const FLOOD_EVERY_MS = 50;
/**
 * The flood runs this long before the import: the flooders' changes of now of the minute (10 each,
 * 3 s of the rate for the three) are sent by then, and what they write after waits as history.
 */
const FLOOD_AHEAD_MS = 5000;

/** The worker's environment: the test's quiet period and allowance, at `ratePerS` requests a second. */
function workerSettings(ratePerS: number): Record<string, string> {
  return {
    ATHLETE_RATE_LIMIT_PER_S: String(ratePerS),
    SYNC_QUIET_MS: String(QUIET_MS),
    SYNC_FRESH_PER_PERSON_PER_MINUTE: String(FRESH_PER_MINUTE),
  };
}

let stack: Stack | undefined;
let worker: Running | undefined;

afterEach(async () => {
  await eachInOrder(
    () => worker?.stop('SIGTERM'),
    () => stack?.close(),
  );
  [stack, worker] = [undefined, undefined];
});

/** Writes one day after another, from `firstDay`, until `stopped()`; the days written. */
async function flood(person: Person, firstDay: string, stopped: () => boolean): Promise<string[]> {
  const written: string[] = [];
  for (let day = firstDay; !stopped(); day = addDays(day, 1)) {
    await writeOnceAccepted(person, day);
    written.push(day);
    await sleep(FLOOD_EVERY_MS);
  }
  return written;
}

/**
 * Writes the day as a well-behaved script would: again after the Retry-After of a 503 (the database
 * busy for a moment, which a loaded machine can make happen), any other answer acknowledged.
 */
async function writeOnceAccepted(person: Person, day: string): Promise<void> {
  for (;;) {
    const response = await workload.write.send(person.client, day, 0);
    const body = await response.text();
    if (response.status !== 503) {
      expect(response.ok, `${workload.write.route} for ${day} answered ${response.status}: ${body}`).toBe(true);
      return;
    }
    await sleep(Number(response.headers.get('retry-after')) * 1000);
  }
}

/** How many of the athletes' days first reached the service between `from` and `to`. */
async function arrivalsBetween(athletes: string[], from: number, to: number): Promise<number> {
  const arrivals = await Promise.all(athletes.map((athlete) => arrivalsOf(stack!, athlete)));
  return arrivals.flat().filter((at) => at >= from && at <= to).length;
}

/** Whether the person has history waiting to be sent (a row of `histories`). */
async function hasHistoryWaiting(person: Person): Promise<boolean> {
  const row = await stack!.db
    .selectFrom('histories')
    .innerJoin('users', 'users.id', 'histories.user_id')
    .select('histories.user_id')
    .where('users.email', '=', person.email)
    .executeTakeFirst();
  return row !== undefined;
}

describe('changes of now past what anyone makes by hand', () => {
  it('from three people writing a new day every 50 ms wait as their history: another’s 30-day history keeps an eighth or more of the days sent meanwhile, a change of now still goes first, and every flooded day arrives once', async () => {
    stack = await startStack();
    const flooders = [await connectedPerson(stack, 'W1'), await connectedPerson(stack, 'W2'), await connectedPerson(stack, 'W3')];
    const changer = await connectedPerson(stack, 'F');
    worker = await startWorkerEntryPoint(stack, workerSettings(RATE_PER_S));

    let stopped = false;
    const floods = flooders.map((person, index) => flood(person, `${2000 + 10 * index}-01-01`, () => stopped));
    let written: string[][] = [];
    try {
      await sleep(FLOOD_AHEAD_MS);
      await connectedPerson(stack, 'H', HISTORY_DAYS);
      const connectedAt = Date.now();
      await writeDay(changer.client, localToday(new Date(), 'Europe/Berlin'));
      const posted = Date.now();

      const changeArrived = await eventually('F’s change to reach the service', async () => (await arrivalsOf(stack!, 'F'))[0]);
      expect(changeArrived - posted - QUIET_MS).toBeLessThan(1000);
      const lastDay = await eventually(
        'H’s whole history to reach the service',
        async () => {
          const arrived = await arrivalsOf(stack!, 'H');
          return arrived.length === HISTORY_DAYS ? arrived.at(-1) : undefined;
        },
        40_000,
      );
      // Four people have history waiting, so H's fair share is a quarter of what the flooders'
      // 10 changes of now a minute leave: a fifth to a quarter of the days sent meanwhile. Asked
      // for: an eighth. Counted in days sent rather than days a second, so a machine too busy to send at
      // the full rate asks H for an eighth of what it did send.
      const sentMeanwhile = await arrivalsBetween(['W1', 'W2', 'W3', 'F', 'H'], connectedAt, lastDay);
      expect(HISTORY_DAYS / sentMeanwhile).toBeGreaterThanOrEqual(1 / 8);
      for (const person of flooders) expect(await hasHistoryWaiting(person), `${person.athlete} has history waiting`).toBe(true);
    } finally {
      stopped = true;
      // Awaited here, so a flood's failure fails the test rather than going unhandled.
      written = await Promise.all(floods);
    }

    // The rest at a rate without limit: every day each flooder wrote reaches the service, once.
    await worker.stop('SIGTERM');
    worker = await startWorkerEntryPoint(stack, workerSettings(100_000));
    const sent = await eventually(
      'every flooded day to reach the service',
      async () => {
        const each = await Promise.all(flooders.map(({ athlete }) => serviceDays(stack!, athlete)));
        return each.every((days, index) => days.length === written[index]!.length) ? each : undefined;
      },
      90_000,
    );
    sent.forEach((days, index) => {
      expect(days.map((day) => day.date).sort()).toEqual(written[index]);
      expect(days.filter((day) => day.writes !== 1)).toEqual([]);
    });
  }, 180_000);
});
