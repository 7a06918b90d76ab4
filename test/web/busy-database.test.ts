import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import pLimit from 'p-limit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refuseInserts, type TestDatabase } from '../helpers/database.js';
import { signUpNewUser } from '../helpers/flows.js';
import { bodyOf, hiddenField, type ApiError, type CookieClient, type Me } from '../helpers/http-client.js';
import { run } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const MEAL_WRITER = fileURLToPath(new URL('./fixtures/meal-writer.ts', import.meta.url));
const meal = { name: 'Oats', carbs: 60, logged_at: '2026-03-10T08:15:00+01:00' };
/** The meal on one of twenty days, so a burst stays under a day's item limit. */
const mealOnDay = (index: number) => ({ ...meal, logged_at: `2026-03-${String((index % 20) + 1).padStart(2, '0')}T08:15:00+01:00` });

/**
 * Another connection to the app's database, keeping every write waiting until released: SQLite's
 * one write lock, or in Postgres a lock on the tables that lets reads through but no writes.
 */
async function holdWriteLock(database: TestDatabase): Promise<{ release(): Promise<void> }> {
  if (database.kind === 'sqlite') {
    const holder = new SQLite(database.path);
    holder.exec('begin immediate');
    return {
      release: async () => {
        holder.exec('rollback');
        holder.close();
      },
    };
  }
  const holder = new pg.Client({ connectionString: database.url });
  await holder.connect();
  await holder.query('begin');
  await holder.query('lock table users, meal_items, outbox in exclusive mode');
  return {
    release: async () => {
      await holder.query('rollback');
      await holder.end();
    },
  };
}

/** Runs `request`, polling /healthz one after another until it is answered; returns both. */
async function pollingHealthzDuring(request: Promise<Response>): Promise<{ response: Response; slowestHealthzMs: number }> {
  let answered = false;
  let slowestHealthzMs = 0;
  const polling = (async () => {
    while (!answered) {
      const started = performance.now();
      expect((await fetch(`${stack.appUrl}/healthz`)).status).toBe(200);
      slowestHealthzMs = Math.max(slowestHealthzMs, performance.now() - started);
    }
  })();
  const response = await request.finally(() => (answered = true));
  await polling;
  return { response, slowestHealthzMs };
}

async function signedUpClient(): Promise<{ client: CookieClient; email: string }> {
  const client = stack.browser();
  return { client, email: await signUpNewUser(client) };
}

describe('while another connection holds the database’s write lock', () => {
  it('POST /api/meals answers 503 with Retry-After, and 201 once the lock is released', async () => {
    const { client } = await signedUpClient();
    const lock = await holdWriteLock(stack.database);
    try {
      const busy = await client.postJson('/api/meals', meal);
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(await bodyOf<ApiError>(busy)).toMatchObject({ error: 'busy', message: expect.stringContaining('try again') });
    } finally {
      await lock.release();
    }
    expect((await client.postJson('/api/meals', meal)).status).toBe(201);
  });

  it('the time zone form answers 503 with Retry-After and an error page, /healthz stays prompt, and it saves once released', async () => {
    const { client } = await signedUpClient();
    const csrf = hiddenField(await (await client.get('/')).text(), '_csrf');
    const changeTimezone = () => client.postForm('/settings/timezone', { timezone: 'Pacific/Chatham', _csrf: csrf });
    const lock = await holdWriteLock(stack.database);
    try {
      const { response: busy, slowestHealthzMs } = await pollingHealthzDuring(changeTimezone());
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(busy.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await busy.text()).toContain('try again');
      // Measured before this change: /healthz waited 4.8 s behind a write blocked on the lock.
      expect(slowestHealthzMs).toBeLessThan(1000);
    } finally {
      await lock.release();
    }
    expect((await changeTimezone()).status).toBe(303);
    expect((await bodyOf<Me>(await client.get('/api/me'))).timezone).toBe('Pacific/Chatham');
  });
});

describe('a burst of web writes while another process writes to the same database', () => {
  it('all succeed: none answers 500 or 503', async () => {
    const { client } = await signedUpClient();
    const { email: otherEmail } = await signedUpClient();
    // One window for both, starting once the other process has had time to boot.
    const startAt = Date.now() + 3000;
    const otherWriter = run(process.execPath, ['--import', 'tsx', MEAL_WRITER], {
      PATH: process.env.PATH,
      ...stack.env,
      MEAL_MAX_ITEMS_PER_DAY: '100000',
      EMAIL: otherEmail,
      START_AT: String(startAt),
      END_AT: String(startAt + 3000),
    });
    await sleep(startAt - Date.now());
    const limit = pLimit(10);
    const statuses = await Promise.all(
      Array.from({ length: 200 }, (_, index) => limit(async () => (await client.postJson('/api/meals', mealOnDay(index))).status)),
    );

    expect(statuses.filter((status) => status !== 201)).toEqual([]);
    const other = await otherWriter;
    expect(other.stderr).toBe('');
    const { added, failed } = JSON.parse(other.stdout) as { added: number; failed: string[] };
    expect(failed).toEqual([]);
    expect(added).toBeGreaterThan(0);
  }, 30_000);
});

describe('while the database cannot be written (a full disk)', () => {
  /**
   * Writes fail as on a full disk: SQLITE_FULL once the file may grow no further (SQLite's own
   * limit on its pages), or Postgres's disk_full for every new meal item.
   */
  async function fillTheDisk(): Promise<{ free(): Promise<void> }> {
    if (stack.database.kind === 'postgres') {
      const refusal = await refuseInserts(stack.db, 'meal_items', 'disk_full');
      return { free: () => refusal.allow() };
    }
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(stack.db);
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count}`).execute(stack.db);
    return { free: async () => void (await sql`pragma max_page_count = 1073741823`.execute(stack.db)) };
  }

  it('POST /api/meals answers 503, every meal acknowledged before is kept, and it saves again once there is room', async () => {
    const { client } = await signedUpClient();
    const before = await client.postJson('/api/meals', meal);
    const acknowledged = [(await bodyOf<{ id: number }>(before)).id];
    const disk = await fillTheDisk();
    let refused: Response | undefined;
    try {
      // A transaction that cannot write fails, and the database rolls it back by itself.
      for (let index = 0; index < 400 && refused === undefined; index++) {
        const response = await client.postJson('/api/meals', { ...mealOnDay(index), name: `Oats ${index} ${'x'.repeat(100)}` });
        if (response.status === 201) acknowledged.push((await bodyOf<{ id: number }>(response)).id);
        else refused = response;
      }
      expect(refused?.status).toBe(503);
      expect(await bodyOf<ApiError>(refused!)).toMatchObject({ error: 'unavailable', message: expect.stringContaining('try again') });
    } finally {
      await disk.free();
    }
    const stored = await stack.db.selectFrom('meal_items').select('id').where('id', 'in', acknowledged).execute();
    expect(stored).toHaveLength(acknowledged.length);
    expect((await client.postJson('/api/meals', meal)).status).toBe(201);
  });
});
