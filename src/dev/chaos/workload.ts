import { setTimeout as sleep } from 'node:timers/promises';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import type { AppClient, ChaosLedger, KindWorkload } from '../../kinds/workload.js';
import { signIn, type BenchUser } from '../bench/users.js';

/** Each request gives up after this long, so that a client rides out a stalled app. */
const REQUEST_TIMEOUT_MS = 10_000;
/** A client that got no answer, or was told the app is unavailable, waits this long before its next write. */
const BACK_OFF_MS = 200;

export interface ChaosUser extends BenchUser {
  ledger: ChaosLedger;
  /** How many times the session was gone (Redis restarted empty) and the user signed in again. */
  signIns: number;
}

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

/** The user as a client of the app: each request made by requestAsUser. */
const clientOf = (user: ChaosUser): AppClient => ({ request: (path, init) => requestAsUser(user, path, init) });

/** What the app holds for the user on `dates` (the workload's appDays), each date retried until the app answers. */
export async function appDays(workload: KindWorkload, user: ChaosUser, dates: string[]): Promise<Map<string, unknown>> {
  const days = new Map<string, unknown>();
  for (const date of dates) {
    for (let attempt = 1; ; attempt++) {
      try {
        for (const [held, content] of await workload.appDays(clientOf(user), [date])) days.set(held, content);
        break;
      } catch (error) {
        if (attempt === 10) throw new Error(`the app's ${workload.name} of ${date} for ${user.email}`, { cause: error });
        await sleep(500);
      }
    }
  }
  return days;
}

/**
 * Until `until`, `clients` loops each drive their own users (a user's writes are one at a time, so
 * what was acknowledged has an order): the ledger's adds, edits and deletes spread over `dates`.
 * Only 2xx answers count as acknowledged; errors and missing answers are expected while processes
 * restart.
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
    const pick = (least: number, most: number) => uniformInt(own, least, most);
    return (async () => {
      for (let turn = 0; Date.now() < until; turn++) {
        const user = mine[turn % mine.length]!;
        const answered = await user.ledger.writeOnce(clientOf(user), dates, pick);
        if (answered === undefined || answered === 503) await sleep(BACK_OFF_MS);
      }
    })();
  });
  await Promise.all(loops);
}
