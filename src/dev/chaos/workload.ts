import { setTimeout as sleep } from 'node:timers/promises';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import { z } from 'zod';
import { signIn, type BenchUser } from '../bench/users.js';
import { Ledger, type Item } from './ledger.js';

/** Each request gives up after this long, so that a client rides out a stalled app. */
const REQUEST_TIMEOUT_MS = 10_000;
/** A client that got no answer, or was told the app is unavailable, waits this long before its next write. */
const BACK_OFF_MS = 200;
/** Adds stop short of the app's per-day limit, so that a day stays open to them. */
const ITEMS_PER_DAY = 8;

export interface ChaosUser extends BenchUser {
  ledger: Ledger;
  /** How many times the session was gone (Redis restarted empty) and the user signed in again. */
  signIns: number;
  /** Adds attempted, which number the items' names. */
  adds: number;
}

const itemSchema = z.looseObject({ id: z.int(), date: z.string(), name: z.string(), carbs: z.number() });
const dayListSchema = z.object({ meals: z.array(itemSchema) });

/** One request as the user; a lost session (401) is signed in again and the request made once more. */
export async function requestAsUser(user: ChaosUser, path: string, init: RequestInit = {}): Promise<Response> {
  const send = () => user.client.request(path, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const response = await send();
  if (response.status !== 401) return response;
  await response.body?.cancel();
  const signedIn = await signIn(user.client, user.email);
  if (signedIn.status !== 200) return response;
  user.signIns += 1;
  return send();
}

/** The user's items on `dates`, as the app lists them (GET /api/meals), retried until the app answers. */
export async function appItems(user: ChaosUser, dates: string[]): Promise<Item[]> {
  const items: Item[] = [];
  for (const date of dates) {
    for (let attempt = 1; ; attempt++) {
      const response = await requestAsUser(user, `/api/meals?date=${date}`).catch(() => undefined);
      if (response?.ok) {
        items.push(...dayListSchema.parse(await response.json()).meals.map(({ id, date, name, carbs }) => ({ id, date, name, carbs })));
        break;
      }
      if (attempt === 10) throw new Error(`GET /api/meals?date=${date} for ${user.email}: ${response?.status ?? 'no answer'}`);
      await sleep(500);
    }
  }
  return items;
}

const jsonInit = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

const answerName = (response: Response | undefined) => (response === undefined ? 'no answer' : String(response.status));

/** The answer, or undefined when none came (refused, reset, timed out). */
const answerOf = (request: Promise<Response>) => request.catch(() => undefined);

/**
 * Until `until`, `clients` loops each drive their own users (a user's writes are one at a time, so
 * what was acknowledged has an order): adds, edits and deletes spread over `dates`. Only 2xx answers
 * count as acknowledged; errors and missing answers are expected while processes restart.
 */
export async function runWorkload(
  users: ChaosUser[],
  dates: string[],
  clients: number,
  until: number,
  random: RandomGenerator,
): Promise<void> {
  const loops = Array.from({ length: Math.min(clients, users.length) }, (_, client) => {
    const mine = users.filter((user) => user.index % clients === client);
    const own = xoroshiro128plus(uniformInt(random, 0, 2 ** 31));
    return (async () => {
      for (let turn = 0; Date.now() < until; turn++) {
        const answered = await writeOnce(mine[turn % mine.length]!, dates, own);
        if (answered === undefined || answered === 503) await sleep(BACK_OFF_MS);
      }
    })();
  });
  await Promise.all(loops);
}

/** One add, edit or delete as the user, recorded in their ledger; the status it got, if any. */
async function writeOnce(user: ChaosUser, dates: string[], random: RandomGenerator): Promise<number | undefined> {
  const items = [...user.ledger.items.values()];
  const pick = uniformInt(random, 0, 3);
  const date = dates[uniformInt(random, 0, dates.length - 1)]!;
  const dayFull = items.filter((item) => item.date === date).length >= ITEMS_PER_DAY;
  if (items.length === 0 || (pick < 2 && !dayFull)) return add(user, date, random);
  const item = items[uniformInt(random, 0, items.length - 1)]!;
  return pick === 3 ? remove(user, item) : edit(user, item, random);
}

async function add(user: ChaosUser, date: string, random: RandomGenerator): Promise<number | undefined> {
  const name = `Chaos ${user.index}-${(user.adds += 1)}`;
  const carbs = uniformInt(random, 1, 200);
  const minute = uniformInt(random, 0, 16 * 60 - 1);
  const loggedAt = `${date}T${String(6 + Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}:00`;
  const response = await answerOf(requestAsUser(user, '/api/meals', jsonInit('POST', { name, carbs, logged_at: loggedAt })));
  if (response?.status === 201) {
    const { id, date: stored } = itemSchema.parse(await response.json());
    user.ledger.added({ id, date: stored, name, carbs });
  } else if (unacknowledged(response)) user.ledger.unacknowledgedAdd(date, answerName(response));
  return finish(response);
}

async function edit(user: ChaosUser, item: Item, random: RandomGenerator): Promise<number | undefined> {
  const changed = { ...item, name: `${item.name.split(' v')[0]} v${uniformInt(random, 2, 999)}`, carbs: uniformInt(random, 1, 200) };
  const response = await answerOf(
    requestAsUser(user, `/api/meals/${item.id}`, jsonInit('PATCH', { name: changed.name, carbs: changed.carbs })),
  );
  if (response?.status === 200) user.ledger.edited(changed);
  else settleRefusal(user, item.id, response);
  return finish(response);
}

async function remove(user: ChaosUser, item: Item): Promise<number | undefined> {
  const response = await answerOf(requestAsUser(user, `/api/meals/${item.id}`, { method: 'DELETE' }));
  if (response?.status === 204) user.ledger.removed(item.id);
  else settleRefusal(user, item.id, response);
  return finish(response);
}

/** Not acknowledged and perhaps applied: no answer, or a server error. A 4xx was refused, nothing applied. */
const unacknowledged = (response: Response | undefined) => response === undefined || response.status >= 500;

function settleRefusal(user: ChaosUser, id: number, response: Response | undefined): void {
  if (response?.status === 404) user.ledger.gone(id);
  else if (unacknowledged(response)) user.ledger.unacknowledgedChange(id, answerName(response));
}

/** Lets go of a body nobody reads, so that its connection is free again. */
async function finish(response: Response | undefined): Promise<number | undefined> {
  if (response !== undefined && !response.bodyUsed) await response.body?.cancel();
  return response?.status;
}
