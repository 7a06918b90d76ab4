import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { KindWorkload } from '../../kinds/workload.js';
import { readSandbox, type SandboxView } from './sandbox-view.js';
import { appDays, requestAsUser, type ChaosUser } from './workload.js';

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

/** Where one user stands: read side by side with the others', so that a comparison takes about as long as one user's. */
interface UserComparison {
  lost: string[];
  wrongDays: string[];
  notConnected?: { email: string; athlete: string; reason: string };
}

/** Where the app and the sandbox stand for every user's days of the workload's kind. */
export async function compare(workload: KindWorkload, users: ChaosUser[], dates: string[], sandboxUrl: string): Promise<Comparison> {
  const sandbox = await readSandbox(sandboxUrl, workload);
  const each = await Promise.all(users.map((user) => compareUser(workload, user, dates, sandbox)));
  const notConnected = each.flatMap((user) => (user.notConnected ? [user.notConnected] : []));
  return {
    lost: each.flatMap((user) => user.lost),
    wrongDays: each.flatMap((user) => user.wrongDays),
    daysCompared: (users.length - notConnected.length) * dates.length,
    daysHeldBack: notConnected.length * dates.length,
    notConnected,
    sandbox,
  };
}

async function compareUser(workload: KindWorkload, user: ChaosUser, dates: string[], sandbox: SandboxView): Promise<UserComparison> {
  const inApp = await appDays(workload, user, dates);
  const lost = user.ledger.disagreements(inApp).map((problem) => `${user.email}: ${problem}`);
  const reason = await notConnectedReason(user);
  if (reason !== null) return { lost, wrongDays: [], notConnected: { email: user.email, athlete: user.athlete, reason } };
  const held = sandbox.days.get(user.athlete) ?? new Map<string, unknown>();
  const wrongDays = dates.flatMap((date) =>
    workload.sentRight(inApp.get(date), held.get(date))
      ? []
      : [`${user.athlete} ${date}: app ${shown(inApp.get(date))}, sandbox ${shown(held.get(date))}`],
  );
  return { lost, wrongDays };
}

const shown = (day: unknown) => (day === undefined ? 'nothing' : JSON.stringify(day));

/**
 * Compares every `pollMs` until no connected user's day is wrong or `timeoutMs` runs out; the last
 * comparison and when it ended, by which time the stack had converged (once the faults stop,
 * nothing makes a right day wrong again).
 */
export async function waitToConverge(
  workload: KindWorkload,
  users: ChaosUser[],
  dates: string[],
  sandboxUrl: string,
  timeoutMs: number,
  pollMs = 250,
): Promise<{ comparison: Comparison; seconds: number | null }> {
  const started = Date.now();
  for (;;) {
    const comparison = await compare(workload, users, dates, sandboxUrl);
    if (comparison.wrongDays.length === 0) return { comparison, seconds: (Date.now() - started) / 1000 };
    if (Date.now() - started > timeoutMs) return { comparison, seconds: null };
    await sleep(pollMs);
  }
}
