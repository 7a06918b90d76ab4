import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { connectedUser } from '../helpers/flows.js';
import type { CookieClient } from '../helpers/http-client.js';
import { appDay, serviceDay, writeDay } from '../helpers/kinds.js';
import type { Running } from '../helpers/processes.js';
import { overlapping, startRecordingProxy, type RecordingProxy } from '../helpers/recording-proxy.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { startWorkerEntryPoint } from '../helpers/worker-process.js';

/**
 * A worker that stops in the middle of a person's turn, killed or frozen (its event loop stalled, a
 * paused VM), with the production lock settings (WORKER_LOCK_DURATION_MS unset): another worker
 * takes the turn up within seconds, and the person's requests still reach the service one at a
 * time, even once a frozen worker wakes up to finish the turn beside the one that took it up.
 */

const DAYS = ['2026-05-04', '2026-05-05'] as const;
/** How long the slow service holds each data request, so that two at once would show. */
const HOLD_MS = 1500;
/** About 10 s (twice the lock's 5 s) by design; room for a busy machine. Before, 30 to 60 s. */
const TAKEN_UP_WITHIN_MS = 15_000;

let stack: Stack;
let proxy: RecordingProxy;
const workers: Running[] = [];

afterEach(async () => {
  // SIGKILL ends a frozen process too.
  await Promise.all(workers.splice(0).map((worker) => worker.stop('SIGKILL')));
  await proxy.close();
  await stack.close();
});

/** A worker of the stack whose requests to the service go through the slow proxy. */
async function startWorker(): Promise<Running> {
  const worker = await startWorkerEntryPoint(stack, { ATHLETE_BASE_URL: proxy.url, SYNC_QUIET_MS: '100' });
  workers.push(worker);
  return worker;
}

/** Whether the service holds each day as the app does, once it does. */
async function serviceHoldsWhatTheAppHolds(client: CookieClient): Promise<true | undefined> {
  for (const date of DAYS) {
    if (!isDeepStrictEqual((await serviceDay(stack, 'Ana', date))?.content, await appDay(client, date))) return undefined;
  }
  return true;
}

/**
 * A connected person with a change on each of two days, whose turn (both days) the first worker has
 * begun: the slow service is holding its first upsert.
 */
async function firstWorkerMidTurn(): Promise<{ client: CookieClient; first: Running }> {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
  const { client } = await connectedUser(stack);
  proxy = await startRecordingProxy(stack.sandboxUrl, HOLD_MS);
  for (const date of DAYS) await writeDay(client, date);
  const first = await startWorker();
  await eventually('the first worker’s upsert to be at the service', async () => (proxy.requests.length === 1 ? true : undefined));
  return { client, first };
}

describe('a worker stopped while it holds a person’s turn', () => {
  it('killed (SIGKILL): another worker takes the turn up within seconds, and the change made meanwhile reaches the service', async () => {
    const { client, first } = await firstWorkerMidTurn();
    await first.stop('SIGKILL');
    const stoppedAt = performance.now();
    // Their change of now waits for the turn the dead worker held: no second turn of theirs is queued meanwhile.
    await writeDay(client, DAYS[0], 1);
    const second = await startWorker();

    await eventually('the day to reach the service whole', () => serviceHoldsWhatTheAppHolds(client), 2 * TAKEN_UP_WITHIN_MS);
    expect(performance.now() - stoppedAt).toBeLessThan(TAKEN_UP_WITHIN_MS);
    expect(second.output()).toMatch(/job of a worker that stopped renewing its lock queued again/);
    expect(overlapping(proxy.requests)).toEqual([]);
  }, 90_000);

  it('frozen (SIGSTOP) past its lock: another worker takes the turn up, and once the frozen one wakes their requests for the person never overlap', async () => {
    const { client, first } = await firstWorkerMidTurn();
    process.kill(first.child.pid!, 'SIGSTOP');
    const stoppedAt = performance.now();
    await writeDay(client, DAYS[0], 1);
    await startWorker();

    await eventually(
      'the second worker’s upsert to be at the service',
      async () => (proxy.requests.length === 2 ? true : undefined),
      2 * TAKEN_UP_WITHIN_MS,
    );
    expect(performance.now() - stoppedAt).toBeLessThan(TAKEN_UP_WITHIN_MS);
    // It wakes while the second worker's request is at the service, and finishes the turn it was in.
    process.kill(first.child.pid!, 'SIGCONT');
    await eventually('the day to reach the service whole', () => serviceHoldsWhatTheAppHolds(client));
    await eventually('every request to be answered', async () =>
      proxy.requests.every((request) => request.answeredAt) ? true : undefined,
    );

    expect(overlapping(proxy.requests)).toEqual([]);
    expect(await serviceHoldsWhatTheAppHolds(client)).toBe(true);
    await first.waitForOutput(/could not renew lock for job/, 10_000);
  }, 90_000);
});
