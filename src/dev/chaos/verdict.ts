import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { Item } from './ledger.js';
import { readSandbox, sameItems, type SandboxView } from './sandbox-view.js';
import { appItems, requestAsUser, type ChaosUser } from './workload.js';

const meSchema = z.looseObject({
  connection: z.looseObject({ status: z.string(), reason: z.string().optional() }).nullable(),
});

/** Where the app and the sandbox stand for every user at one moment. */
export interface Comparison {
  /** Per acknowledged write the app does not reflect, a line saying how. */
  lost: string[];
  /** Days of connected users where the sandbox's record differs from the app's items. */
  wrongDays: string[];
  daysCompared: number;
  /** Days of users not connected, which the app holds back until they reconnect. */
  daysHeldBack: number;
  notConnected: { email: string; athlete: string; reason: string }[];
  sandbox: SandboxView;
}

/** The user's connection as the app shows it to them (GET /api/me): null while connected. */
async function notConnectedReason(user: ChaosUser): Promise<string | null> {
  const response = await requestAsUser(user, '/api/me');
  const { connection } = meSchema.parse(await response.json());
  if (connection === null) return 'never connected';
  return connection.status === 'connected' ? null : (connection.reason ?? 'no reason recorded');
}

export async function compare(users: ChaosUser[], dates: string[], sandboxUrl: string): Promise<Comparison> {
  const comparison: Comparison = {
    lost: [],
    wrongDays: [],
    daysCompared: 0,
    daysHeldBack: 0,
    notConnected: [],
    sandbox: await readSandbox(sandboxUrl),
  };
  for (const user of users) {
    const items = await appItems(user, dates);
    comparison.lost.push(...user.ledger.disagreements(items).map((problem) => `${user.email}: ${problem}`));
    const reason = await notConnectedReason(user);
    if (reason !== null) {
      comparison.notConnected.push({ email: user.email, athlete: user.athlete, reason });
      comparison.daysHeldBack += dates.length;
      continue;
    }
    const held = comparison.sandbox.days.get(user.athlete) ?? new Map<string, Item[]>();
    for (const date of dates) {
      comparison.daysCompared += 1;
      const inApp = items.filter((item) => item.date === date);
      const inSandbox = held.get(date);
      // A day never sent is right only while the app holds nothing for it.
      if (inSandbox === undefined ? inApp.length > 0 : !sameItems(inApp, inSandbox)) {
        comparison.wrongDays.push(`${user.athlete} ${date}: app ${inApp.length} items, sandbox ${inSandbox?.length ?? 'no record'}`);
      }
    }
  }
  return comparison;
}

/** Compares every `pollMs` until no connected user's day is wrong or `timeoutMs` runs out; the last comparison and when it held. */
export async function waitToConverge(
  users: ChaosUser[],
  dates: string[],
  sandboxUrl: string,
  timeoutMs: number,
  pollMs = 1000,
): Promise<{ comparison: Comparison; seconds: number | null }> {
  const started = Date.now();
  for (;;) {
    const comparison = await compare(users, dates, sandboxUrl);
    if (comparison.wrongDays.length === 0) return { comparison, seconds: (Date.now() - started) / 1000 };
    if (Date.now() - started > timeoutMs) return { comparison, seconds: null };
    await sleep(pollMs);
  }
}
