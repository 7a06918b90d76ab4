import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { onServer, type TestDatabase } from '../helpers/database.js';
import { bodyOf } from '../helpers/http-client.js';
import { untilReady } from '../helpers/readiness.js';
import { DisposableRedis } from '../helpers/redis-server.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let redis: DisposableRedis | undefined;

afterEach(async () => {
  try {
    await stack.close();
  } finally {
    await redis?.stop();
    redis = undefined;
  }
});

interface Readiness {
  ok: boolean;
  failing?: string[];
}

const readiness = async () => {
  const response = await fetch(`${stack.appUrl}/readyz`);
  return { status: response.status, body: await bodyOf<Readiness>(response) };
};

/**
 * SQLite: overwrites the database and its WAL files with bytes that are not SQLite, under the open
 * connection. Postgres: drops the stack's schema, so its tables are gone.
 */
async function makeUnusable(database: TestDatabase): Promise<void> {
  if (database.kind === 'postgres') return onServer(database.serverUrl, `drop schema ${database.schema} cascade`);
  for (const path of [database.path, `${database.path}-wal`, `${database.path}-shm`]) writeFileSync(path, Buffer.alloc(32_768, 'x'));
}

describe('GET /readyz', () => {
  it('answers 200 { ok: true } when the database and Redis answer', async () => {
    stack = await startStack();
    expect(await readiness()).toEqual({ status: 200, body: { ok: true } });
  });

  it('answers 503 naming redis while Redis is down, and 200 again once it is back; /healthz stays 200', async () => {
    redis = await DisposableRedis.start();
    stack = await startStack({ env: { REDIS_URL: redis.url } });
    await redis.stop();
    try {
      expect(await readiness()).toEqual({ status: 503, body: { ok: false, failing: ['redis'] } });
      expect((await fetch(`${stack.appUrl}/healthz`)).status).toBe(200);
    } finally {
      await redis.start();
    }
    await untilReady(stack);
  });

  it('answers 503 naming the database when it no longer holds the app’s tables', async () => {
    stack = await startStack();
    await makeUnusable(stack.database);
    expect(await readiness()).toEqual({ status: 503, body: { ok: false, failing: ['database'] } });
  });
});
