import { MemoryStore } from 'express-session';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccountErasure, finishPendingErasures } from '../../src/accounts/account-erasure.js';
import { createAttemptLimits } from '../../src/accounts/attempt-limits.js';
import { freePort } from '../../src/dev/free-port.js';
import { KINDS } from '../../src/kinds.js';
import { createLogger } from '../../src/logger.js';
import { recordIncident } from '../../src/notices/notice.repository.js';
import { createProducerConnection, createRedisConnection } from '../../src/redis/redis.js';
import { redisServer, type RedisConnection } from '../../src/redis/redis-target.js';
import { sendEntry } from '../../src/sync/send-entry.js';
import { LANES, queueTurns } from '../../src/sync/queue.js';
import { takeTurn } from '../../src/sync/turn.js';
import { createUserSessions } from '../../src/web/user-sessions.js';
import { PASSWORD, sendJson, signedInAgain } from '../helpers/account.js';
import { connect, connectHeldAtTokenAnswer, signUpNewUser } from '../helpers/flows.js';
import { bodyOf, hiddenField, type ApiError, type CookieClient } from '../helpers/http-client.js';
import { appDay, serviceDays, workload, writeDay } from '../helpers/kinds.js';
import { cellsNaming } from '../helpers/person-traces.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';

let stack: Stack;
let redis: RedisConnection;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
  redis = createRedisConnection(stack.config.redis.target);
});
afterAll(async () => {
  redis.disconnect();
  await stack.close();
});

interface Person {
  id: number;
  email: string;
  client: CookieClient;
}

/**
 * A connected person with a day of each kind that has a workload, a connection notice and a failed
 * sign-in. The rows of a kind without a workload are deleted with the account in its own tests
 * (test/<kind>/).
 */
async function personWithData(athlete = 'Ana'): Promise<Person> {
  await stack.changeSandbox({ autoApprove: athlete });
  const client = stack.browser();
  const email = await signUpNewUser(client);
  expect((await connect(client)).status).toBe(303);
  const { id } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  for (const kind of KINDS) {
    const response = await kind.workload?.write.send(client, '2026-03-10', 0);
    expect(response?.ok ?? true, `${kind.name} writes its day`).toBe(true);
  }
  const { grant_id } = await stack.db.selectFrom('connections').select('grant_id').where('user_id', '=', id).executeTakeFirstOrThrow();
  await recordIncident(stack.db, { userId: id, grantId: grant_id, kind: 'expiring', detail: '2026-12-01T00:00:00.000Z' }, new Date());
  expect((await stack.browser().postJson('/api/login', { email, password: 'a wrong password' })).status).toBe(401);
  return { id, email, client };
}

/**
 * Every key of the stack's Redis that names the person: their session set, a session of theirs, a
 * count of their sign-ins (by email), of their mails or Connects (by id).
 */
async function redisKeysNaming(person: Pick<Person, 'id' | 'email'>): Promise<string[]> {
  const keys = await redis.keys(`${stack.config.redis.prefix}:*`);
  const countedById = (key: string) => key.includes(':attempts:') && key.endsWith(`:${person.id}`);
  const naming: string[] = [];
  for (const key of keys) {
    if (key.includes(person.email) || key.endsWith(`:user-sessions:${person.id}`) || countedById(key)) naming.push(key);
    if (key.includes(':session:') && (await redis.get(key))?.includes(`"userId":${person.id},`)) naming.push(key);
  }
  return naming;
}

describe('DELETE /api/account', () => {
  it('deletes every row that names the person, in every table, and what Redis holds of them; every session ends', async () => {
    const person = await personWithData();
    const laptop = await signedInAgain(person.client, person.email);
    expect(await cellsNaming(stack.db, stack.database, person)).not.toEqual([]);
    expect(await redisKeysNaming(person)).not.toEqual([]);

    const deleted = await sendJson(person.client, 'DELETE', '/api/account', { password: PASSWORD });

    expect(deleted.status).toBe(204);
    expect(await cellsNaming(stack.db, stack.database, person)).toEqual([]);
    expect(await redisKeysNaming(person)).toEqual([]);
    expect((await person.client.get('/api/me')).status).toBe(401);
    expect((await laptop.get('/api/me')).status).toBe(401);
    expect((await stack.browser().postJson('/api/login', { email: person.email, password: PASSWORD })).status).toBe(401);
  });

  it('leaves the email free: it signs up again and starts empty, with an id never given before', async () => {
    const person = await personWithData();
    expect((await sendJson(person.client, 'DELETE', '/api/account', { password: PASSWORD })).status).toBe(204);

    const again = stack.browser();
    const signup = await again.postJson('/api/signup', { email: person.email, password: 'a new long password', timezone: 'UTC' });
    expect(signup.status).toBe(201);
    expect(await signup.json()).toMatchObject({ email: person.email, connection: null });
    const exported = await (await again.get('/api/account/export')).json();
    expect(exported).toMatchObject({ connection: null, syncDays: [], connectionMails: [] });
    // And each kind's part, whichever kinds are registered: every list empty, nothing else held.
    const { exportedAt: _exportedAt, account: _account, ...held } = exported as Record<string, unknown>;
    for (const [field, value] of Object.entries(held)) expect(value, field).toEqual(Array.isArray(value) ? [] : null);
    const { id } = await stack.db.selectFrom('users').select('id').where('email', '=', person.email).executeTakeFirstOrThrow();
    expect(id).toBeGreaterThan(person.id);
  });

  it("drops the person's queued turns before the delete", async () => {
    const person = await personWithData();
    const queuedFor = async () => {
      const jobs = await Promise.all(LANES.map((lane) => stack.syncQueues[lane].getJobs(['delayed', 'waiting', 'prioritized'])));
      return jobs.flat().filter((job) => (job.data as { userId?: number }).userId === person.id);
    };
    for (const lane of LANES) await queueTurns(stack.syncQueues, lane, [person.id]);
    expect(await queuedFor()).toHaveLength(2);
    expect((await sendJson(person.client, 'DELETE', '/api/account', { password: PASSWORD })).status).toBe(204);
    expect(await queuedFor()).toEqual([]);
  });

  it('refuses a wrong password (403) and deletes nothing; guesses in a loop end in 429, counted as failed sign-ins', async () => {
    const person = await personWithData();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 7; attempt++) {
      statuses.push((await sendJson(person.client, 'DELETE', '/api/account', { password: `guess ${attempt}` })).status);
    }
    // The failed sign-in made in personWithData counts too.
    expect(statuses).toEqual([403, 403, 403, 403, 429, 429, 429]);
    expect((await person.client.get('/api/me')).status).toBe(200);
    expect(await appDay(person.client, '2026-03-10')).toBeDefined();
  });

  it.each([
    ['no body', undefined],
    ['an empty object', {}],
    ['a number', { password: 12 }],
    ['an unknown field', { password: PASSWORD, everything: true }],
    ['a password of 5,000 characters', { password: 'p'.repeat(5000) }],
    ['null', null],
  ])('answers 400 to %s, and deletes nothing', async (_case, body) => {
    const client = stack.browser();
    await signUpNewUser(client);
    const refused = await client.request('/api/account', {
      method: 'DELETE',
      ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    expect(refused.status).toBe(400);
    expect((await bodyOf<ApiError>(refused)).error).toMatch(/^(invalid_request|bad_request)$/);
    expect((await client.get('/api/me')).status).toBe(200);
  });

  it('answers 401 signed out', async () => {
    expect((await sendJson(stack.browser(), 'DELETE', '/api/account', { password: PASSWORD })).status).toBe(401);
  });
});

describe('the delete page', () => {
  it('says what stays at the service and where to withdraw access, asks for the password, then deletes', async () => {
    const person = await personWithData();
    const page = await (await person.client.get('/account/delete')).text();
    expect(page).toContain('What stays at the Athlete Data Service');
    expect(page.replace(/\s+/g, ' ')).toContain("withdraw this app's access in its settings");
    const _csrf = hiddenField(page, '_csrf');

    const wrong = await person.client.postForm('/account/delete', { _csrf, password: 'not my password' });
    expect(wrong.status).toBe(303);
    expect(await (await person.client.get(wrong.headers.get('location')!)).text()).toContain(
      'Your account was not deleted: That is not your current password.',
    );

    const deleted = await person.client.postForm('/account/delete', { _csrf, password: PASSWORD });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toBe('/account-deleted');
    expect(await (await person.client.get('/account-deleted')).text()).toContain('Your account is deleted');
    expect(await cellsNaming(stack.db, stack.database, person)).toEqual([]);
  });
});

describe('a sync job running at the moment of deletion', () => {
  it.each([
    ['refreshes the token', false],
    ['refuses the refresh (invalid_grant)', true],
  ])('ends quietly while the service %s, and the service receives no call for the person after it', async (_case, revoked) => {
    const logged = await startStack({ sandbox: { autoApprove: 'Bea', accessTokenTtlS: 2 }, captureLogs: 'warn' });
    try {
      const client = logged.browser();
      const email = await signUpNewUser(client);
      expect((await connect(client)).status).toBe(303);
      const { id } = await logged.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
      await writeDay(client, '2026-03-11');
      if (revoked) {
        const stolen = (await logged.storedGrant(id))!.refreshToken;
        for (let i = 0; i < 2; i++) await logged.presentRefreshToken(stolen); // reuse: the sandbox revokes the grant
      }
      // The access token is due for a refresh, whose answer the service holds: the job is in the middle of it when the account goes.
      await logged.changeSandbox({ tokenDelayMs: 1500 });
      await eventually('the access token to be due for a refresh', async () =>
        (await logged.storedGrant(id))!.expiresAt.getTime() - Date.now() < 1000 ? true : undefined,
      );
      const refreshesBefore = (await logged.sandboxState()).counters.refreshRequests;
      const running = sendEntry(logged.sendDependencies(), { userId: id, kind: workload.syncKind, subject: '2026-03-11' });
      await eventually('the job to ask for a refresh', async () =>
        (await logged.sandboxState()).counters.refreshRequests > refreshesBefore ? true : undefined,
      );

      expect((await sendJson(client, 'DELETE', '/api/account', { password: PASSWORD })).status).toBe(204);

      // Not thrown (no retry), and nothing left to record: the entry and the connection are gone.
      expect(await running).toBe('waiting-for-connection');
      expect(await serviceDays(logged, 'Bea')).toEqual([]);
      const { counters } = await logged.sandboxState();
      expect(Object.keys(counters.requests).filter((endpoint) => endpoint.includes(workload.servicePath))).toEqual([]);
      expect(logged.logs).toEqual([]);
      expect(await logged.db.selectFrom('connection_notices').selectAll().execute()).toEqual([]);
    } finally {
      await logged.close();
    }
  });
});

describe('deletion racing a request of the person', () => {
  /** A person signed in twice, who has not connected yet. */
  async function personOnTwoDevices() {
    await stack.changeSandbox({ autoApprove: 'Dora' });
    const client = stack.browser();
    const email = await signUpNewUser(client);
    const phone = await signedInAgain(client, email);
    const { id } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
    return { id, email, client, phone };
  }

  it("Connect's callback, waiting for the service's token answer: 401, and nothing of the person is saved or left in Redis", async () => {
    const person = await personOnTwoDevices();
    const callback = await connectHeldAtTokenAnswer(stack, person.client, 2000);

    expect((await sendJson(person.phone, 'DELETE', '/api/account', { password: PASSWORD })).status).toBe(204);
    expect(callback.answered()).toBe(false);

    const answer = await callback.answer;
    expect(answer.status).toBe(401);
    expect(await answer.text()).toContain('Sign in first.');
    expect(await cellsNaming(stack.db, stack.database, person)).toEqual([]);
    expect(await redisKeysNaming(person)).toEqual([]);
  });
});

describe('Redis away at the moment of deletion', () => {
  it('the store is emptied at once; the sessions end at the next sweep, and meanwhile nothing of the person is sent', async () => {
    const person = await personWithData('Cleo');
    const unreachable = createProducerConnection(redisServer(`redis://127.0.0.1:${await freePort()}`));
    const sessionsThere = createUserSessions({
      db: stack.db,
      redis: unreachable,
      redisPrefix: stack.config.redis.prefix,
      limits: stack.config.session,
      store: new MemoryStore(),
    });
    const erasure = createAccountErasure({
      db: stack.db,
      forgetQueuedWork: () => Promise.reject(new Error('Connection is closed.')),
      endSessions: sessionsThere.endAll,
      attemptLimits: createAttemptLimits({
        redis: unreachable,
        redisPrefix: stack.config.redis.prefix,
        settings: stack.config.attemptLimits,
      }),
      clock: () => new Date(),
      logger: createLogger('silent'),
    });

    await erasure.erase(person);
    unreachable.disconnect();

    expect(await cellsNaming(stack.db, stack.database, person)).toEqual([`account_erasures.user_id = ${person.id}`]);
    // The session is still in Redis, but names nobody: it is not signed in.
    expect((await person.client.get('/api/me')).status).toBe(401);
    // A turn the deletion could not drop finds nothing to send.
    const turnDeps = {
      ...stack.sendDependencies(),
      budget: stack.budget,
      freshAllowance: stack.freshAllowance,
      logger: createLogger('silent'),
    };
    for (const lane of LANES) {
      expect(await takeTurn(turnDeps, { quietMs: 0, freshAttempts: 8 }, lane, person.id, 0)).toEqual({ sent: 0, next: { next: 'done' } });
    }
    expect(await serviceDays(stack, 'Cleo')).toEqual([]);

    const sessions = createUserSessions({
      db: stack.db,
      redis: stack.redis,
      redisPrefix: stack.config.redis.prefix,
      limits: stack.config.session,
      store: new MemoryStore(),
    });
    expect(await finishPendingErasures(stack.db, sessions.endAll)).toBe(1);
    expect(await cellsNaming(stack.db, stack.database, person)).toEqual([]);
    expect((await redisKeysNaming(person)).filter((key) => !key.includes(':attempts:'))).toEqual([]);
    expect(await finishPendingErasures(stack.db, sessions.endAll)).toBe(0);
  });
});
