import { afterEach, describe, expect, it } from 'vitest';
import { addDays, localToday } from '../../../src/dates/local-today.js';
import { wellnessRecord } from '../../../src/wellness/wellness-record.js';
import type { Measurements } from '../../../src/wellness/wellness.schemas.js';
import { connect, signUpNewUser } from '../../helpers/flows.js';
import { hiddenField, type CookieClient } from '../../helpers/http-client.js';
import type { Running } from '../../helpers/processes.js';
import { startStack, type Stack } from '../../helpers/stack.js';
import { eventually } from '../../helpers/wait.js';
import { BLANK_WELLNESS_FORM, EVERY_MEASUREMENT, putWellness, sendWellness, wellnessDays } from '../../wellness/helpers.js';
import { startWorkerProcess } from '../../helpers/worker-process.js';

let stack: Stack;
let worker: Running | undefined;

afterEach(async () => {
  await worker?.stop('SIGTERM');
  expect(worker?.output()).not.toMatch(/sbx_(at|rt|code)_/);
  worker = undefined;
  await stack.close();
});

interface Person {
  athlete: string;
  client: CookieClient;
  /** The person's today in their own zone. */
  today: string;
  /** What the person entered last for each day: the test's own model of what the service must hold. */
  entered: Map<string, Measurements>;
}

async function newPerson(athlete: string, timezone: string): Promise<Person> {
  await stack.changeSandbox({ autoApprove: athlete });
  const client = stack.browser();
  await signUpNewUser(client, timezone);
  expect((await connect(client)).status).toBe(303);
  return { athlete, client, today: localToday(new Date(), timezone), entered: new Map() };
}

async function enter(person: Person, daysFromToday: number, measurements: Measurements): Promise<void> {
  const date = addDays(person.today, daysFromToday);
  await putWellness(person.client, date, measurements);
  person.entered.set(date, measurements);
}

/** Saves today's row of the wellness page as a browser would: empty fields are measurements not taken. */
async function enterOnPage(person: Person, fields: Record<string, string>, entered: Measurements): Promise<void> {
  const page = await (await person.client.get('/wellness')).text();
  // The page's rows are the person's tomorrow, then today, in their zone, not the server's.
  expect([...page.matchAll(/<tr data-date="([^"]+)">/g)].slice(0, 2).map((row) => row[1])).toEqual([
    addDays(person.today, 1),
    person.today,
  ]);
  const saved = await person.client.postForm(`/wellness/${person.today}`, {
    _csrf: hiddenField(page, '_csrf'),
    ...BLANK_WELLNESS_FORM,
    ...fields,
  });
  expect(saved.status).toBe(303);
  person.entered.set(person.today, entered);
}

/** Every day the person entered is at the service exactly as entered, no field more, and synced here. */
async function serviceMatches(people: Person[]): Promise<true | undefined> {
  const { athletes } = await stack.sandboxState();
  for (const person of people) {
    const expected = Object.fromEntries([...person.entered].map(([date, measurements]) => [date, wellnessRecord(date, measurements)]));
    const stored = Object.fromEntries(Object.entries(athletes[person.athlete]?.wellness ?? {}).map(([date, day]) => [date, day.payload]));
    if (JSON.stringify(sortedKeys(stored)) !== JSON.stringify(sortedKeys(expected))) return undefined;
    const days = await wellnessDays(person.client, addDays(person.today, -3), addDays(person.today, 1));
    if (days.some((day) => day.sync?.status !== 'synced')) return undefined;
  }
  return true;
}

function sortedKeys(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, inner]) => [key, sortedKeys(inner)]),
  );
}

describe('wellness sync, worker in its own process', () => {
  it('ends with what each person entered for every local day, fields absent staying absent, while data requests fail', async () => {
    // The web app's hint delays each day's job by SYNC_QUIET_MS (debounce).
    stack = await startStack({ env: { SYNC_QUIET_MS: '200' } });
    await stack.changeSandbox({ faultRate: 0.3, faultKinds: ['500', '429', 'drop'], faultTargets: ['data'], faultSeed: 3, retryAfterS: 1 });
    const workerStarting = startWorkerProcess(stack, { TZ: 'UTC' });
    // +14:00 and -11:00: 25 hours apart, so at any hour their dates differ from each other, and
    // one of them from UTC's; the web app runs at +14:00 (vitest.config.ts), the worker at UTC.
    const people = [await newPerson('kiritimati', 'Pacific/Kiritimati'), await newPerson('pago-pago', 'Pacific/Pago_Pago')];
    worker = await workerStarting;

    for (const person of people) {
      await enter(person, -3, EVERY_MEASUREMENT);
      await enter(person, -2, { sleepSecs: 0 });
      await enter(person, -1, { weight: 70.1, vo2max: 54 });
      await enter(person, 1, { restingHr: 49 }); // tomorrow, still allowed
      await enterOnPage(person, { hrv: '61', sleepHours: '7' }, { hrv: 61, sleepSecs: 25_200 });
      // A day after tomorrow, in the person's zone, is refused.
      expect((await sendWellness(person.client, addDays(person.today, 2), { hrv: 50 })).status).toBe(400);
    }
    await eventually('the service to hold every day as entered', () => serviceMatches(people), 20_000);

    // Changes to days already at the service: a field removed, another added, one day sent again unchanged.
    for (const person of people) {
      await enter(person, -3, { hrv: 47, restingHr: 52 });
      await enter(person, -2, { sleepSecs: 0, hrv: 30 });
      await enter(person, -1, person.entered.get(addDays(person.today, -1))!);
    }
    await eventually('the service to hold the changed days', () => serviceMatches(people), 20_000);

    const { counters } = await stack.sandboxState();
    console.log('Wellness requests by status:', counters.requests['POST /api/wellness'], 'faults:', counters.faults);
    // The seed makes each kind of fault happen at least once.
    for (const kind of ['500', '429', 'drop']) expect((counters.faults as Record<string, number>)[kind]).toBeGreaterThan(0);
    // The day entered again unchanged made no new version, so it was not sent again.
    for (const person of people) expect((await wellnessDays(person.client, addDays(person.today, -1)))[0]?.sync?.syncedVersion).toBe(1);
  }, 25_000);
});
