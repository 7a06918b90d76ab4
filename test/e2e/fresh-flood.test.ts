import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates/local-today.js';
import { arrivalsOf, connectedPerson, importHistory, type Person } from '../helpers/history.js';
import { addMeal } from '../helpers/meals.js';
import { eachInOrder, type Running } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { sendWellness } from '../helpers/wellness.js';
import { startWorkerEntryPoint } from '../helpers/worker-process.js';

/**
 * People writing a new day through the single-item API many times a second, as a script replaying
 * history would, against another person's import and a change of now, with a real worker and the
 * sandbox over HTTP: past SYNC_FRESH_PER_PERSON_PER_MINUTE (30 by default) their changes wait as
 * their own history, so the import keeps its share of the rate, the change of now still goes
 * first, and every flooded day still arrives, once.
 */

const RATE_PER_S = 10;
const QUIET_MS = 1000;
const HISTORY_DAYS = 30;
/** Each flooder writes a new day, then waits this long: together, several times the rate. */
const FLOOD_EVERY_MS = 50;
/**
 * The flood runs this long before the import: the flooders' changes of now of the minute (30 each,
 * 9 s of the rate for the three) are sent by then, and what they write after waits as history.
 */
const FLOOD_AHEAD_MS = 12_000;

let stack: Stack | undefined;
let worker: Running | undefined;

afterEach(async () => {
  await eachInOrder(
    () => worker?.stop('SIGTERM'),
    () => stack?.close(),
  );
  [stack, worker] = [undefined, undefined];
});

/** Writes the wellness of one day after another, from `firstDay`, until `stopped()`; the days written. */
async function flood(person: Person, firstDay: string, stopped: () => boolean): Promise<string[]> {
  const written: string[] = [];
  for (let day = firstDay; !stopped(); day = addDays(day, 1)) {
    const response = await sendWellness(person.client, day, { restingHr: 50 });
    await response.arrayBuffer();
    expect(response.status).toBe(200);
    written.push(day);
    await sleep(FLOOD_EVERY_MS);
  }
  return written;
}

/** Whether the person has history waiting to be sent (a row of `backfills`). */
async function hasHistoryWaiting(person: Person): Promise<boolean> {
  const row = await stack!.db
    .selectFrom('backfills')
    .innerJoin('users', 'users.id', 'backfills.user_id')
    .select('backfills.user_id')
    .where('users.email', '=', person.email)
    .executeTakeFirst();
  return row !== undefined;
}

describe('changes of now past what anyone makes by hand', () => {
  it('from three people writing a new day every 50 ms wait as their history: another’s 30-day import keeps an eighth of the rate or more, a change of now still goes first, and every flooded day arrives once', async () => {
    stack = await startStack();
    const flooders = [await connectedPerson(stack, 'W1'), await connectedPerson(stack, 'W2'), await connectedPerson(stack, 'W3')];
    const importer = await connectedPerson(stack, 'H');
    const changer = await connectedPerson(stack, 'F');
    worker = await startWorkerEntryPoint(stack, { ATHLETE_RATE_LIMIT_PER_S: String(RATE_PER_S), SYNC_QUIET_MS: String(QUIET_MS) });

    let stopped = false;
    const floods = flooders.map((person, index) => flood(person, `${2000 + 10 * index}-01-01`, () => stopped));
    try {
      await sleep(FLOOD_AHEAD_MS);
      await importHistory(importer, HISTORY_DAYS);
      const imported = Date.now();
      await addMeal(changer.client, { name: 'Lunch', carbs: 60, logged_at: new Date().toISOString() });
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
      // Four people have history waiting, so the import's fair share is a quarter of what the
      // flooders' 30 changes of now a minute leave (about 2 days a second). Asked for: half of it.
      const paceDaysPerS = (HISTORY_DAYS * 1000) / (lastDay - imported);
      expect(paceDaysPerS).toBeGreaterThanOrEqual(RATE_PER_S / 8);
      for (const person of flooders) expect(await hasHistoryWaiting(person)).toBe(true);
    } finally {
      stopped = true;
    }
    const written = await Promise.all(floods);

    // The rest at a rate without limit: every day each flooder wrote reaches the service, once.
    await worker.stop('SIGTERM');
    worker = await startWorkerEntryPoint(stack, { ATHLETE_RATE_LIMIT_PER_S: '100000', SYNC_QUIET_MS: String(QUIET_MS) });
    const { athletes } = await eventually(
      'every flooded day to reach the service',
      async () => {
        const state = await stack!.sandboxState();
        const arrived = flooders.every(
          ({ athlete }, index) => Object.keys(state.athletes[athlete]?.wellness ?? {}).length === written[index]!.length,
        );
        return arrived ? state : undefined;
      },
      90_000,
    );
    flooders.forEach(({ athlete }, index) => {
      const days = athletes[athlete]!.wellness!;
      expect(Object.keys(days).sort()).toEqual(written[index]);
      expect(Object.values(days).filter((day) => day.writes !== 1)).toEqual([]);
    });
  }, 180_000);
});
