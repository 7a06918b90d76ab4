import { afterEach, describe, expect, it } from 'vitest';
import type { Settings } from '../../src/sandbox/settings.js';
import {
  changeSettings,
  exchangeCode,
  getWithToken,
  obtainCode,
  obtainTokens,
  postJson,
  readState,
  startSandbox,
  type RunningSandbox,
} from './helpers.js';

const running: RunningSandbox[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((sandbox) => sandbox.stop()));
});

async function start(overrides: Partial<Settings>): Promise<RunningSandbox> {
  const sandbox = await startSandbox(overrides);
  running.push(sandbox);
  return sandbox;
}

/** Statuses of `count` workout listings in a row. */
async function listingStatuses(sandbox: RunningSandbox, accessToken: string, count = 30): Promise<number[]> {
  const statuses: number[] = [];
  for (let index = 0; index < count; index += 1) {
    statuses.push((await getWithToken(sandbox, '/api/workouts', accessToken)).status);
  }
  return statuses;
}

const someFaults: Partial<Settings> = { faultRate: 0.5, faultKinds: ['500', '503', '429'] };

describe('fault injection', () => {
  it('repeats the same faults for the same seed and the same requests', async () => {
    const first = await start({ ...someFaults, faultSeed: 7 });
    const second = await start({ ...someFaults, faultSeed: 7 });
    const statuses = await listingStatuses(first, (await obtainTokens(first)).access_token);
    expect(await listingStatuses(second, (await obtainTokens(second)).access_token)).toEqual(statuses);
    expect(new Set(statuses)).toEqual(new Set([200, 500, 503, 429]));
  });

  it('gives other faults for another seed', async () => {
    const first = await start({ ...someFaults, faultSeed: 7 });
    const second = await start({ ...someFaults, faultSeed: 8 });
    const statuses = await listingStatuses(first, (await obtainTokens(first)).access_token);
    expect(await listingStatuses(second, (await obtainTokens(second)).access_token)).not.toEqual(statuses);
  });

  it('starts the sequence over when settings are set', async () => {
    const sandbox = await start({ ...someFaults, faultSeed: 7 });
    const { access_token } = await obtainTokens(sandbox);
    await changeSettings(sandbox, { faultSeed: 7 });
    const statuses = await listingStatuses(sandbox, access_token);
    await changeSettings(sandbox, { faultSeed: 7 });
    expect(await listingStatuses(sandbox, access_token)).toEqual(statuses);
  });

  it('counts the faults it injected by kind', async () => {
    const sandbox = await start({ ...someFaults, faultSeed: 7 });
    const statuses = await listingStatuses(sandbox, (await obtainTokens(sandbox)).access_token);
    const count = (status: number) => statuses.filter((one) => one === status).length;
    expect(await readState(sandbox)).toMatchObject({
      counters: {
        faults: { '500': count(500), '503': count(503), '429': count(429), stall: 0, drop: 0 },
        requests: { 'GET /api/workouts': { '200': count(200), '500': count(500) } },
      },
    });
  });

  it('answers 429 with Retry-After and applies nothing', async () => {
    const sandbox = await start({ faultRate: 1, faultKinds: ['429'], retryAfterS: 7 });
    const { access_token } = await obtainTokens(sandbox);
    const response = await postJson(sandbox, '/api/wellness', { date: '2026-03-01' }, access_token);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(sandbox.runtime.state.athletes.get('Ada')?.wellness.size).toBe(0);
  });

  it('applies a dropped request but cuts the connection before the answer', async () => {
    const sandbox = await start({ faultRate: 1, faultKinds: ['drop'] });
    const { access_token } = await obtainTokens(sandbox);
    await expect(postJson(sandbox, '/api/wellness', { date: '2026-03-01', hrv: 61 }, access_token)).rejects.toThrow();
    expect(await readState(sandbox)).toMatchObject({
      athletes: { Ada: { wellness: { '2026-03-01': { writes: 1, payload: { hrv: 61 } } } } },
      counters: { faults: { drop: 1 }, requests: { 'POST /api/wellness': { 'no response': 1 } } },
    });
  });

  it('holds a stalled request, then cuts it without applying it', async () => {
    const sandbox = await start({ faultRate: 1, faultKinds: ['stall'], stallMs: 50 });
    const { access_token } = await obtainTokens(sandbox);
    const startedAt = performance.now();
    await expect(postJson(sandbox, '/api/wellness', { date: '2026-03-01' }, access_token)).rejects.toThrow();
    expect(performance.now() - startedAt).toBeGreaterThanOrEqual(45);
    expect(sandbox.runtime.state.athletes.get('Ada')?.wellness.size).toBe(0);
  });

  it('leaves the token endpoint alone by default', async () => {
    const sandbox = await start({ faultRate: 1, faultKinds: ['503'] });
    expect((await exchangeCode(sandbox, await obtainCode(sandbox))).status).toBe(200);
  });

  it('hits the token endpoint when targeted, still with no-store', async () => {
    const sandbox = await start({ faultRate: 1, faultKinds: ['503'], faultTargets: ['token'] });
    const response = await exchangeCode(sandbox, await obtainCode(sandbox));
    expect(response.status).toBe(503);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toMatchObject({ error: 'temporarily_unavailable' });
  });

  it('draws each kind at its own rate per target, on top of the even shorthand', async () => {
    const sandbox = await start({
      faultRate: 0.2,
      faultKinds: ['503', '429'],
      faultRates: { data: { '500': 0.3, '429': 0.1 }, token: {} },
    });
    const { access_token } = await obtainTokens(sandbox);
    const statuses = await listingStatuses(sandbox, access_token, 400);
    const share = (status: number) => statuses.filter((one) => one === status).length / statuses.length;
    expect(share(500)).toBeCloseTo(0.3, 1);
    expect(share(429)).toBeCloseTo(0.2, 1);
    expect(share(503)).toBeCloseTo(0.1, 1);
    expect(share(200)).toBeCloseTo(0.4, 1);

    await changeSettings(sandbox, { faultRate: 0, faultRates: { data: {}, token: { '500': 1 } } });
    expect(await listingStatuses(sandbox, access_token, 5)).toEqual([200, 200, 200, 200, 200]);
    expect((await exchangeCode(sandbox, await obtainCode(sandbox))).status).toBe(500);
  });

  it('never touches the authorization endpoint', async () => {
    const sandbox = await start({ faultRate: 1, faultKinds: ['500'], faultTargets: ['data', 'token'] });
    await expect(obtainCode(sandbox)).resolves.toMatchObject({ code: expect.stringMatching(/^sbx_code_/) });
  });
});
