import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ianaTimeZoneName } from '../../src/accounts/time-zone.js';
import { bodyOf, hiddenField, type Me } from '../helpers/http-client.js';
import { run } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';

const password = 'a long password';

describe('ianaTimeZoneName', () => {
  it.each([
    ['europe/berlin', 'Europe/Berlin'],
    ['AMERICA/ST_JOHNS', 'America/St_Johns'],
    ['Pacific/Chatham', 'Pacific/Chatham'],
    ['utc', 'UTC'],
    ['Etc/UTC', 'UTC'],
  ])('names %s as IANA spells it, %s', (typed, name) => {
    expect(ianaTimeZoneName(typed)).toBe(name);
  });

  // This Node's ICU calls each of them by its old name (Europe/Kiev, Asia/Calcutta, …).
  it.each([
    ['Europe/Kyiv', 'Europe/Kyiv'],
    ['europe/kiev', 'Europe/Kyiv'],
    ['Asia/Kolkata', 'Asia/Kolkata'],
    ['ASIA/CALCUTTA', 'Asia/Kolkata'],
    ['Asia/Kathmandu', 'Asia/Kathmandu'],
    ['asia/katmandu', 'Asia/Kathmandu'],
    ['America/Nuuk', 'America/Nuuk'],
    ['America/Godthab', 'America/Nuuk'],
    ['Asia/Saigon', 'Asia/Ho_Chi_Minh'],
    ['America/Buenos_Aires', 'America/Argentina/Buenos_Aires'],
  ])('names the renamed zone %s by its current spelling, %s', (typed, name) => {
    expect(ianaTimeZoneName(typed)).toBe(name);
  });

  it.each(['Europe/Amsterdam', 'Europe/Oslo', 'Pacific/Chuuk'])('keeps %s, which IANA links to a zone it merged it with', (typed) => {
    expect(ianaTimeZoneName(typed)).toBe(typed);
  });

  it.each(['Mars/Olympus', 'europe/berlın', 'Europe/Berlin\u0000', ' Europe/Berlin', '', 'Factory'])('knows no zone %j', (typed) => {
    expect(ianaTimeZoneName(typed)).toBeUndefined();
  });
});

describe('the time zone field', () => {
  it('does not grow the process with the spellings it parses (5,000 of one zone, in a process of their own)', async () => {
    const script = fileURLToPath(new URL('./fixtures/validate-time-zone-spellings.ts', import.meta.url));
    const finished = await run('node', ['--expose-gc', '--import', 'tsx', script, '5000'], { PATH: process.env.PATH });
    expect(finished.stderr).toBe('');
    const measured: { distinct: number; growthMiB: number } = JSON.parse(finished.stdout);
    expect(measured.distinct).toBe(5000);
    // Before, every spelling stayed in V8's zone caches: about 130 MiB here.
    expect(measured.growthMiB).toBeLessThan(16);
  });
});

describe("zones taken from people are stored in IANA's spelling", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  it('POST /api/signup', async () => {
    const client = stack.browser();
    const email = 'api-zone@example.com';
    const response = await client.postJson('/api/signup', { email, password, timezone: 'europe/berlin' });
    expect(response.status).toBe(201);
    expect((await bodyOf<Me>(response)).timezone).toBe('Europe/Berlin');
    const stored = await stack.db.selectFrom('users').select('timezone').where('email', '=', email).executeTakeFirstOrThrow();
    expect(stored.timezone).toBe('Europe/Berlin');
  });

  it('a person who signs up in Europe/Kyiv is shown Europe/Kyiv', async () => {
    const client = stack.browser();
    const signup = await client.postJson('/api/signup', { email: 'kyiv@example.com', password, timezone: 'Europe/Kyiv' });
    expect((await bodyOf<Me>(signup)).timezone).toBe('Europe/Kyiv');
    expect((await bodyOf<Me>(await client.get('/api/me'))).timezone).toBe('Europe/Kyiv');
    const dashboard = await (await client.get('/')).text();
    expect(dashboard).toContain('value="Europe/Kyiv"');
    expect(dashboard).not.toContain('Kiev');
  });

  it('the sign-up page, and the time zone form of the dashboard', async () => {
    const client = stack.browser();
    const signupPage = await (await client.get('/signup')).text();
    const signup = await client.postForm('/signup', {
      email: 'page-zone@example.com',
      password,
      timezone: 'AMERICA/ST_JOHNS',
      _csrf: hiddenField(signupPage, '_csrf'),
    });
    expect(signup.status).toBe(303);
    expect((await bodyOf<Me>(await client.get('/api/me'))).timezone).toBe('America/St_Johns');

    const dashboard = await (await client.get('/')).text();
    await client.postForm('/settings/timezone', { timezone: 'pacific/chatham', _csrf: hiddenField(dashboard, '_csrf') });
    expect((await bodyOf<Me>(await client.get('/api/me'))).timezone).toBe('Pacific/Chatham');
  });
});
