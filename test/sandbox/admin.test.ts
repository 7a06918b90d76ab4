import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { Settings } from '../../src/sandbox/settings.js';
import { fitFile } from '../helpers/fit-files.js';
import {
  changeSettings,
  getWithToken,
  obtainTokens,
  postJson,
  readState,
  refreshWith,
  startSandbox,
  uploadFit,
  type RunningSandbox,
} from './helpers.js';

let sandbox: RunningSandbox;
afterEach(() => sandbox.stop());

async function start(overrides: Partial<Settings> = {}): Promise<RunningSandbox> {
  sandbox = await startSandbox(overrides);
  return sandbox;
}

const at = (path: string) => new URL(path, sandbox.baseUrl);

describe('admin routes in service mode', () => {
  it.each([
    ['GET', '/_sandbox/state'],
    ['GET', '/_sandbox/counters'],
    ['GET', '/_sandbox'],
    ['POST', '/_sandbox/reset'],
    ['POST', '/_sandbox/settings'],
    ['POST', '/_sandbox/grants'],
    ['GET', '/_sandbox/athletes/anyone'],
  ])('%s %s does not exist', async (method, path) => {
    await start({ mode: 'service' });
    const response = await fetch(at(path), {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: method === 'POST' ? '{}' : null,
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'not_found' });
  });
});

describe('POST /_sandbox/grants', () => {
  it("grants the client each athlete's approval, with tokens that the data endpoints and the token endpoint take", async () => {
    await start();
    const response = await postJson(sandbox, '/_sandbox/grants', { athletes: ['ann', 'bo'], scopes: ['nutrition:write'] });
    expect(response.status).toBe(200);
    const { grants } = (await response.json()) as { grants: Array<{ athlete: string; access_token: string; refresh_token: string }> };
    expect(grants.map((grant) => grant.athlete)).toEqual(['ann', 'bo']);
    const day = { date: '2026-02-01', items: [{ name: 'Oats', carbs: 40, logged_at: '2026-02-01T07:30:00+01:00' }] };
    expect((await postJson(sandbox, '/api/nutrition', day, grants[0]!.access_token)).status).toBe(201);
    expect((await refreshWith(sandbox, grants[1]!.refresh_token)).status).toBe(200);
    const athlete = await fetch(at('/_sandbox/athletes/ann'));
    expect(await athlete.json()).toMatchObject({ name: 'ann', nutrition: { '2026-02-01': { writes: 1 } } });
  });

  it('refuses an empty list or a scope the service does not have', async () => {
    await start();
    expect((await postJson(sandbox, '/_sandbox/grants', { athletes: [], scopes: ['nutrition:write'] })).status).toBe(400);
    expect((await postJson(sandbox, '/_sandbox/grants', { athletes: ['ann'], scopes: ['everything'] })).status).toBe(400);
  });
});

describe('GET /_sandbox/athletes/:name', () => {
  it('answers 404 for an athlete who has sent nothing', async () => {
    await start();
    expect((await fetch(at('/_sandbox/athletes/nobody'))).status).toBe(404);
  });
});

describe('GET /_sandbox/state', () => {
  it('shows settings without the client secret', async () => {
    await start();
    const state = await readState(sandbox);
    expect(state).toMatchObject({ settings: { clientId: 'athlete-sync-demo', refreshTokenTtlS: null } });
    expect(state).not.toHaveProperty(['settings', 'clientSecret']);
    expect(JSON.stringify(state)).not.toContain(sandbox.settings.clientSecret);
  });

  it('never shows a credential', async () => {
    await start();
    const tokens = await obtainTokens(sandbox);
    const state = JSON.stringify(await readState(sandbox));
    expect(state).not.toContain(tokens.access_token);
    expect(state).not.toContain(tokens.refresh_token);
    expect(state).not.toMatch(/sbx_(at|rt|code)_/);
  });

  it('does not count its own requests', async () => {
    await start();
    await readState(sandbox);
    expect(await readState(sandbox)).toHaveProperty(['counters', 'requests'], {});
  });
});

describe('GET /_sandbox/counters', () => {
  it('is the state’s counters alone', async () => {
    await start({ autoApprove: 'Ada' });
    const { access_token } = await obtainTokens(sandbox);
    await postJson(sandbox, '/api/nutrition', { date: '2026-03-01', items: [] }, access_token);
    const counters = await (await fetch(at('/_sandbox/counters'))).json();
    expect(await readState(sandbox)).toHaveProperty('counters', counters);
    expect(counters).toHaveProperty(['requests', 'POST /api/nutrition', '201'], 1);
  });
});

describe('GET /_sandbox', () => {
  it('shows athletes, their records, grants and counters to a person, escaped', async () => {
    await start({ autoApprove: '<b>Ada</b>' });
    const { access_token } = await obtainTokens(sandbox);
    await postJson(sandbox, '/api/wellness', { date: '2026-03-01', note: '<script>alert(1)</script>' }, access_token);
    const response = await fetch(at('/_sandbox'));
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await response.text();
    expect(page).toContain('Athlete &lt;b&gt;Ada&lt;/b&gt;');
    expect(page).toContain('2026-03-01');
    expect(page).toContain('&lt;script&gt;');
    expect(page).not.toContain('<script>');
    expect(page).toContain('POST /api/wellness');
    expect(page).toContain('nutrition:write');
  });

  it('shows each athlete’s nutrition, wellness and workouts side by side', async () => {
    await start();
    const { access_token } = await obtainTokens(sandbox);
    const nutrition = { date: '2026-03-01', items: [{ name: 'Oats', carbs: 40, logged_at: '2026-03-01T07:00:00+01:00' }], rawJson: {} };
    expect((await postJson(sandbox, '/api/nutrition', nutrition, access_token)).status).toBeLessThan(300);
    expect((await postJson(sandbox, '/api/wellness', { date: '2026-03-01', hrv: 52.5, restingHr: 48 }, access_token)).status).toBeLessThan(
      300,
    );
    const file = fitFile();
    expect((await uploadFit(sandbox, access_token, { file, name: 'Morning ride' })).status).toBe(201);
    const page = await (await fetch(at('/_sandbox'))).text();

    const records = page.slice(page.indexOf('<div class="records">'));
    const column = (kind: string) => records.slice(records.indexOf(`data-records="${kind}"`)).split('</table>')[0] ?? '';
    expect(records.indexOf('data-records="nutrition"')).toBeLessThan(records.indexOf('data-records="wellness"'));
    expect(records.indexOf('data-records="wellness"')).toBeLessThan(records.indexOf('data-records="workouts"'));
    expect(column('nutrition')).toMatch(/<td>2026-03-01<\/td><td>1<\/td>/);
    expect(column('wellness')).toContain('<td>hrv 52.5, restingHr 48</td>');
    const workouts = column('workouts');
    expect(workouts).toContain('Morning ride');
    expect(workouts).toContain(`<code class="hash">${createHash('sha256').update(file).digest('hex')}</code>`);
    expect(workouts).toContain(`<td>${file.length}</td>`);
    expect(workouts).toContain('<td>2026-03-01T08:00:00.000Z</td>');
  });
});

describe('POST /_sandbox/settings', () => {
  it('changes settings and answers with the effective ones', async () => {
    await start();
    const response = await changeSettings(sandbox, { accessTokenTtlS: 5, refreshTokenTtlS: 50 });
    expect(response.status).toBe(200);
    const effective: unknown = await response.json();
    expect(effective).toMatchObject({ accessTokenTtlS: 5, refreshTokenTtlS: 50, codeTtlS: 60 });
    expect(effective).not.toHaveProperty('clientSecret');
    expect(await obtainTokens(sandbox)).toMatchObject({ expires_in: 5, refresh_token_expires_in: 50 });
  });

  it.each([
    ['an unknown key', { accessTokenTTL: 5 }, 'accessTokenTTL'],
    ['a start-up-only key', { port: 5000 }, 'port'],
    ['a wrong type', { rotateRefreshTokens: 'no' }, 'rotateRefreshTokens'],
    ['a value out of range', { faultRate: 1.5 }, 'faultRate'],
    ['an unknown fault kind', { faultKinds: ['404'] }, 'faultKinds.0'],
    ['an unknown scope', { withheldScopes: ['calendar:read'] }, 'withheldScopes.0'],
    ['fault shares adding up to more than 1', { faultRate: 0.5, faultRates: { data: { '500': 0.6 }, token: {} } }, 'faultRates'],
  ])('refuses %s, naming it', async (_case, patch, field) => {
    await start();
    const response = await changeSettings(sandbox, patch);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request', fields: [field] });
  });
});

describe('POST /_sandbox/reset', () => {
  it('forgets data, grants and counters, and goes back to the start-up settings', async () => {
    await start();
    const { access_token } = await obtainTokens(sandbox);
    await postJson(sandbox, '/api/wellness', { date: '2026-03-01' }, access_token);
    await changeSettings(sandbox, { accessTokenTtlS: 5 });

    expect((await fetch(at('/_sandbox/reset'), { method: 'POST' })).status).toBe(200);

    expect(await readState(sandbox)).toEqual(
      expect.objectContaining({
        athletes: {},
        grants: [],
        counters: expect.objectContaining({ requests: {}, refreshRequests: 0, tokenGrants: { authorization_code: 0, refresh_token: 0 } }),
        settings: expect.objectContaining({ accessTokenTtlS: 3600 }),
      }),
    );
    expect((await getWithToken(sandbox, '/api/workouts', access_token)).status).toBe(401);
  });
});

describe('other routes', () => {
  it('answers GET /healthz', async () => {
    await start({ mode: 'service' });
    const response = await fetch(at('/healthz'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
  });

  it('answers an unknown route with a JSON 404', async () => {
    await start();
    const response = await fetch(at('/api/profile'));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'not_found' });
  });
});
