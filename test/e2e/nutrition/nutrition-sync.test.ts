import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { MEAL_AMOUNTS, type Amounts } from '../../../src/nutrition/meal.fields.js';
import { createMeals, type MealView } from '../../../src/nutrition/meals.js';
import { mealSettings } from '../../../src/nutrition/nutrition.settings.js';
import { WAITING_FOR_CONNECTION } from '../../../src/sync/send-entry.js';
import { dailySyncStatuses } from '../../../src/sync/sync-statuses.js';
import { connect, signUpNewUser } from '../../helpers/flows.js';
import type { CookieClient } from '../../helpers/http-client.js';
import { addMeal, AMOUNT_NAMES, changeMeal, deleteMeal, everyAmount } from '../../nutrition/helpers.js';
import { syncStatus } from '../../helpers/sync-status.js';
import type { Running } from '../../helpers/processes.js';
import { DisposableRedis } from '../../helpers/redis-server.js';
import { startStack, type Stack } from '../../helpers/stack.js';
import { eventually } from '../../helpers/wait.js';
import { startWorkerEntryPoint } from '../../helpers/worker-process.js';

let stack: Stack;
const workers: Running[] = [];

afterEach(async () => {
  const stopped = workers.splice(0);
  await Promise.all(stopped.map((worker) => worker.stop('SIGTERM')));
  // The token canary: the workers logged at info, and no token the sandbox issued is in it.
  for (const worker of stopped) expect(worker.output()).not.toMatch(/sbx_(at|rt|code)_/);
  await stack.close();
});

interface Person {
  athlete: string;
  userId: number;
  client: CookieClient;
  /** What the app answered last for each item still there: the test's own model of the store. */
  items: Map<number, MealView>;
  /** Every local date the person ever touched. */
  dates: Set<string>;
}

async function newPerson(athlete: string, timezone: string): Promise<Person> {
  await stack.changeSandbox({ autoApprove: athlete });
  const client = stack.browser();
  const email = await signUpNewUser(client, timezone);
  expect((await connect(client)).status).toBe(303);
  const { id } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return { athlete, userId: id, client, items: new Map(), dates: new Set() };
}

async function add(person: Person, body: Record<string, unknown>): Promise<MealView> {
  const item = await addMeal(person.client, body);
  person.items.set(item.id, item);
  person.dates.add(item.date);
  return item;
}

async function change(person: Person, id: number, changes: Record<string, unknown>): Promise<void> {
  const item = await changeMeal(person.client, id, changes);
  person.items.set(id, item);
  person.dates.add(item.date);
}

async function remove(person: Person, id: number): Promise<void> {
  await deleteMeal(person.client, id);
  person.items.delete(id);
}

/** The day as the service should hold it, computed from the test's model, not by the app's code. */
function expectedItems(person: Person, date: string) {
  return [...person.items.values()]
    .filter((item) => item.date === date)
    .sort((a, b) => Date.parse(a.logged_at) - Date.parse(b.logged_at) || a.id - b.id)
    .map((item) => ({
      name: item.name,
      carbs: item.carbs,
      logged_at: item.logged_at,
      ...(item.absorptionType && { absorptionType: item.absorptionType }),
    }));
}

async function serviceMatchesModel(people: Person[]): Promise<true | undefined> {
  const { athletes } = await stack.sandboxState();
  for (const person of people) {
    for (const date of person.dates) {
      const stored = athletes[person.athlete]?.nutrition[date]?.payload.items;
      if (JSON.stringify(stored) !== JSON.stringify(expectedItems(person, date))) return undefined;
    }
    const statuses = await dailySyncStatuses(stack.db, person.userId, '2026-01-01', '2026-12-31');
    if (statuses.some((day) => day.status !== 'synced')) return undefined;
  }
  return true;
}

describe('nutrition sync, worker in its own process', () => {
  it('ends with exactly the expected record for every day while 20% of data requests fail', async () => {
    stack = await startStack();
    const people = [
      await newPerson('kathmandu', 'Asia/Kathmandu'),
      await newPerson('st-johns', 'America/St_Johns'),
      await newPerson('berlin', 'Europe/Berlin'),
    ];
    await stack.changeSandbox({ faultRate: 0.2, faultKinds: ['500', '503', '429'], faultTargets: ['data'], faultSeed: 7 });
    workers.push(await startWorkerEntryPoint(stack, { SYNC_QUIET_MS: '300' }));

    for (const [index, person] of people.entries()) {
      for (let i = 0; i < 12; i++) {
        const day = 27 + (i % 4); // 2026-03-27 .. 2026-03-30, across Europe's spring-forward night
        const time = `${String(5 + i).padStart(2, '0')}:${String((i * 7) % 60).padStart(2, '0')}:00`;
        const loggedAt = [`2026-03-${day}T${time}`, `2026-03-${day}T${time}Z`, `2026-03-${day}T${time}-09:30`][i % 3];
        await add(person, {
          name: `item ${index}.${i}`,
          carbs: 10 + i,
          ...(i % 2 === 0 && { absorptionType: 'RAPID' }),
          logged_at: loggedAt,
        });
      }
      // A burst of edits and deletes, some moving items to other days (and across midnight).
      const ids = [...person.items.keys()];
      for (const id of ids.slice(0, 4)) await change(person, id, { carbs: 99 });
      await change(person, ids[4]!, { logged_at: '2026-03-31T00:00:00+14:00' });
      await change(person, ids[5]!, { logged_at: '2026-03-29T02:30' });
      for (const id of ids.slice(6, 9)) await remove(person, id);
    }
    // Empty one whole day of the first person: it must be sent as an empty list.
    for (const item of [...people[0]!.items.values()].filter((item) => item.date === '2026-03-28')) {
      await remove(people[0]!, item.id);
    }

    await eventually('the service to match every day of every person', () => serviceMatchesModel(people), 90_000);

    // A second round on days already in the service: more edits, deletes and new items.
    for (const person of people) {
      const ids = [...person.items.keys()];
      for (const id of ids.slice(0, 3)) await change(person, id, { name: 'edited later' });
      await remove(person, ids[3]!);
      await add(person, { name: 'late snack', carbs: 5, logged_at: '2026-03-30T23:59:59.500' });
    }
    await eventually('the service to match the second round', () => serviceMatchesModel(people), 90_000);

    const { athletes, counters } = await stack.sandboxState();
    const upserts = people.flatMap((person) =>
      [...person.dates]
        .sort()
        .map((date) => ({ athlete: person.athlete, date, upserts: athletes[person.athlete]!.nutrition[date]!.writes })),
    );
    console.log('Upserts per day (20% of data requests failing):');
    console.table(upserts);
    console.log('Nutrition requests by status:', counters.requests['POST /api/nutrition']);
    expect(athletes.kathmandu!.nutrition['2026-03-28']!.payload.items).toEqual([]);
    expect(Object.keys(counters.requests['POST /api/nutrition']!).some((status) => status !== '201' && status !== '200')).toBe(true);
  }, 150_000);
});

describe('the declared amounts of a meal item', () => {
  /** The amounts given that are declared sent as `sent`, as the service should hold them. */
  const sentAs = (amounts: Amounts, sent: 'record' | 'rawJson') =>
    Object.fromEntries(
      AMOUNT_NAMES.flatMap((name) => (MEAL_AMOUNTS[name].sent === sent && amounts[name] !== undefined ? [[name, amounts[name]]] : [])),
    );

  it.skipIf(AMOUNT_NAMES.length === 0)(
    'each reach the strict service as declared (inside the item in rawJson, or as a field of the item), and one removed is gone',
    async () => {
      stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
      const person = await newPerson('Ana', 'Europe/Berlin');
      workers.push(await startWorkerEntryPoint(stack, { SYNC_QUIET_MS: '100' }));
      const date = '2026-05-04';
      const given = everyAmount(stack.config.kindSettings.of(mealSettings).meals);
      const oats = { name: 'Oats', carbs: 60, logged_at: `${date}T08:00:00+02:00` };
      const tea = { name: 'Tea', carbs: 1, logged_at: `${date}T09:00:00+02:00` };
      const withAmounts = await add(person, { ...oats, ...given });
      const without = await add(person, tea);

      /** The day as the service should hold it once synced: computed from what was sent, not by the app's code. */
      const expectServiceHolds = async (amounts: Amounts) => {
        await eventually('the day to be synced', async () =>
          (await syncStatus(person.client, date))[0]?.status === 'synced' ? true : undefined,
        );
        const day = (await stack.sandboxState()).athletes.Ana?.nutrition[date]?.payload;
        expect({ items: day?.items, rawJson: day?.rawJson }).toEqual({
          items: [{ ...oats, ...sentAs(amounts, 'record') }, tea],
          rawJson: { source: 'athlete-sync', items: [{ id: withAmounts.id, ...sentAs(amounts, 'rawJson') }, { id: without.id }] },
        });
      };
      await expectServiceHolds(given);

      const removed = AMOUNT_NAMES[0]!;
      await change(person, withAmounts.id, { [removed]: null });
      await expectServiceHolds(Object.fromEntries(Object.entries(given).filter(([name]) => name !== removed)));
    },
    60_000,
  );
});

describe('nothing is lost when a part fails', () => {
  it('a day whose worker is killed mid-upsert ends synced after a new worker starts', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const person = await newPerson('Ana', 'Europe/Berlin');
    await stack.changeSandbox({ faultRate: 1, faultKinds: ['stall'], faultTargets: ['data'], stallMs: 60_000 });
    // A job whose worker died is taken up again within about twice the lock's duration.
    const settings = { SYNC_QUIET_MS: '100', WORKER_LOCK_DURATION_MS: '1000' };
    const doomed = await startWorkerEntryPoint(stack, settings);
    await add(person, { name: 'Toast', carbs: 30, logged_at: '2026-05-01T08:00:00+02:00' });
    await eventually('the upsert to be in flight', async () => ((await stack.syncQueues.fresh.getActiveCount()) > 0 ? true : undefined));

    await doomed.stop('SIGKILL');
    await stack.changeSandbox({ faultRate: 0 });
    workers.push(await startWorkerEntryPoint(stack, settings));

    await eventually('the day to be synced', () => serviceMatchesModel([person]), 60_000);
    expect((await syncStatus(person.client, '2026-05-01'))[0]).toMatchObject({ status: 'synced' });
  }, 90_000);

  // A worker running through the outage finds Redis back empty: whatever it had queued is gone, and
  // the store is what it queues from again.
  it.each([
    ['a worker started once Redis is back', false],
    ['a worker that ran through the outage (Redis back empty)', true],
  ])(
    'a day written while Redis is down ends synced by %s',
    async (_, runningThrough) => {
      const redis = await DisposableRedis.start();
      // After afterEach, which needs it to close the stack.
      onTestFinished(() => redis.stop());
      stack = await startStack({ sandbox: { autoApprove: 'Ana' }, env: { REDIS_URL: redis.url } });
      const person = await newPerson('Ana', 'Europe/Berlin');
      const startWorker = async () => workers.push(await startWorkerEntryPoint(stack, { SYNC_QUIET_MS: '100' }));
      if (runningThrough) await startWorker();
      const user = await stack.db.selectFrom('users').selectAll().where('id', '=', person.userId).executeTakeFirstOrThrow();
      // The meals of the web process, without its sessions (which need Redis): a change needs only the store.
      const meals = createMeals({
        db: stack.db,
        limits: stack.config.kindSettings.of(mealSettings).meals,
        clock: () => new Date(),
        historyAdded: async () => {},
      });

      await redis.stop();
      const added = await meals.add(user, { name: 'Soup', carbs: 20, logged_at: '2026-05-02T12:00:00+02:00' });
      expect(added.ok).toBe(true);
      if (added.ok) {
        person.items.set(added.meal.id, added.meal);
        person.dates.add(added.meal.date);
      }
      expect(await stack.syncQueues.fresh.count().catch(() => 'unreachable')).toBe('unreachable');

      await redis.start();
      if (!runningThrough) await startWorker();
      await eventually('the day to be synced', () => serviceMatchesModel([person]), 60_000);
    },
    90_000,
  );
});

describe('a revoked grant', () => {
  it('makes the day wait without burning retries, and reconnecting resumes it', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const person = await newPerson('Ana', 'Europe/Berlin');
    const stolen = (await stack.storedGrant(person.userId))!.refreshToken;
    for (let i = 0; i < 2; i++) await stack.presentRefreshToken(stolen); // reuse: the sandbox revokes the grant
    // No sweeps during the test: only reconnecting may resume the waiting day.
    workers.push(await startWorkerEntryPoint(stack, { SYNC_QUIET_MS: '100', SYNC_SWEEP_INTERVAL_MS: '600000' }));

    await add(person, { name: 'Pasta', carbs: 90, logged_at: '2026-05-03T19:00:00+02:00' });
    await eventually('the connection to need reconnecting', async () =>
      (await stack.storedGrant(person.userId))?.status === 'needs_reconnect' ? true : undefined,
    );
    // The day's reason is written a moment after the connection's status, by the same turn.
    const waiting = await eventually('the day to say why it waits', async () => {
      const [day] = await syncStatus(person.client, '2026-05-03');
      return day?.error === undefined ? undefined : day;
    });
    expect(waiting).toMatchObject({ status: 'pending', error: WAITING_FOR_CONNECTION });
    expect(await stack.syncQueues.fresh.getFailedCount()).toBe(0);
    expect(await (await person.client.get('/')).text()).toContain('Needs reconnecting');

    expect((await connect(person.client)).status).toBe(303);
    await eventually('the waiting day to sync after reconnecting', () => serviceMatchesModel([person]), 30_000);
  }, 60_000);
});
