import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDb } from '../../src/db/database.js';
import { freePort } from '../../src/dev/free-port.js';
import { createLogger } from '../../src/logger.js';
import { LockTimeoutError } from '../../src/redis/redis-lock.js';
import { createProducerConnection } from '../../src/redis/redis.js';
import { redisServer } from '../../src/redis/redis-target.js';
import { createErrorHandler } from '../../src/web/error-handler.js';
import { createPageRenderer } from '../../src/web/pages.js';
import { createViewRenderer } from '../../src/web/views.js';
import { signUpNewUser } from '../helpers/flows.js';
import { bodyOf, type ApiError } from '../helpers/http-client.js';
import { untilReady } from '../helpers/readiness.js';
import { DisposableRedis } from '../helpers/redis-server.js';
import { startStack, type Stack } from '../helpers/stack.js';

describe('while Redis is down, a signed-in request (its session is in Redis)', () => {
  let redis: DisposableRedis;
  let stack: Stack;

  afterEach(async () => {
    try {
      await stack.close();
    } finally {
      await redis.stop();
    }
  });

  it('answers 503 with a plain message at once: JSON for the API, an error page for pages', async () => {
    redis = await DisposableRedis.start();
    stack = await startStack({ env: { REDIS_URL: redis.url } });
    const client = stack.browser();
    await signUpNewUser(client);
    await redis.stop();
    try {
      const api = await client.request('/api/me', { signal: AbortSignal.timeout(5000) });
      expect(api.status).toBe(503);
      expect(await bodyOf<ApiError>(api)).toEqual({ error: 'unavailable', message: expect.stringContaining('try again') });

      const page = await client.request('/', { signal: AbortSignal.timeout(5000) });
      expect(page.status).toBe(503);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await page.text()).toContain('try again');
    } finally {
      await redis.start();
      await untilReady(stack);
    }
  });
});

describe('the error handler', () => {
  let server: Server;
  const logs: string[] = [];

  afterEach(async () => {
    logs.length = 0;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    vi.restoreAllMocks();
  });

  /** A bare app with one route, ending in the app's error handler, logging into `logs`. */
  async function appWith(path: string, route: express.RequestHandler): Promise<string> {
    const app = express();
    app.get(path, route);
    const logger = createLogger('info', 'test', { write: (line: string) => void logs.push(line) });
    app.use(createErrorHandler({ logger, renderPage: createPageRenderer(createViewRenderer(), () => 'form-token') }));
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('answers 503 with Retry-After when a command fails because ioredis cannot reach Redis', async () => {
    const unreachable = createProducerConnection(redisServer(`redis://127.0.0.1:${await freePort()}`));
    const url = await appWith('/api/claim', async () => {
      await unreachable.set('claim', '1');
    });
    try {
      const response = await fetch(`${url}/api/claim`);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect(await bodyOf<ApiError>(response)).toMatchObject({ error: 'unavailable' });
    } finally {
      unreachable.disconnect();
    }
  });

  it('answers 503 with Retry-After when a query fails because Postgres cannot be reached, and logs an error for the operator', async () => {
    const unreachable = createDb({ kind: 'postgres', url: `postgres://postgres@127.0.0.1:${await freePort()}/app`, poolSize: 1 });
    const url = await appWith('/api/me', async (_req, res) => {
      res.json(await unreachable.selectFrom('users').select('id').execute());
    });
    try {
      const response = await fetch(`${url}/api/me`);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect(await bodyOf<ApiError>(response)).toMatchObject({ error: 'unavailable' });
      expect(JSON.parse(logs[0]!)).toMatchObject({ level: 50, err: { type: 'DatabaseUnreachableError' } });
    } finally {
      await unreachable.destroy();
    }
  });

  it('answers 503 busy with Retry-After: 1 when a lock another request holds stayed taken too long', async () => {
    const url = await appWith('/api/activities', () => {
      throw new LockTimeoutError('lock athlete-sync:activity-file:1/ab still held after 10000 ms');
    });
    const response = await fetch(`${url}/api/activities`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(await bodyOf<ApiError>(response)).toMatchObject({ error: 'busy' });
  });

  it.each([
    [413, 'payload_too_large'],
    [400, 'bad_request'],
  ])('answers a client error of status %i with error %j and the error’s own message', async (status, code) => {
    const url = await appWith('/api/upload', () => {
      throw Object.assign(new Error('The file is larger than the limit of 25 MiB.'), { status });
    });
    const response = await fetch(`${url}/api/upload`);
    expect(response.status).toBe(status);
    expect(await bodyOf<ApiError>(response)).toEqual({ error: code, message: 'The file is larger than the limit of 25 MiB.' });
  });

  it('logs an error after the response has started through the app’s logger only, and closes the connection', async () => {
    const printed = vi.spyOn(console, 'error').mockImplementation(() => {});
    const url = await appWith('/report', async (_req, res) => {
      res.write('first half of the report');
      await sleep(50);
      throw new Error('failed halfway');
    });

    const response = await fetch(`${url}/report`);
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(logs).toHaveLength(1);
    expect(JSON.parse(logs[0]!)).toMatchObject({ level: 50, path: '/report', err: { message: 'failed halfway' } });
    expect(printed).not.toHaveBeenCalled();
  });
});
