import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import pLimit from 'p-limit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refuseInserts, type TestDatabase } from '../helpers/database.js';
import { addDays } from '../../src/dates/local-today.js';
import { signUpNewUser } from '../helpers/flows.js';
import { appDay, workload, writeDay } from '../helpers/kinds.js';
import { bodyOf, hiddenField, type ApiError, type CookieClient, type Me } from '../helpers/http-client.js';
import { start } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const OUTBOX_WRITER = fileURLToPath(new URL('./fixtures/outbox-writer.ts', import.meta.url));
const DATE = '2026-03-10';
/** Write `index` of a burst, on one of twenty days, so that a burst stays under a day's limits. */
const writeOnDay = (client: CookieClient, index: number) =>
  workload.write.send(client, `2026-03-${String((index % 20) + 1).padStart(2, '0')}`, index);

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
  // Every kind's change locks its user and marks its entry in the outbox.
  await holder.query('lock table users, outbox in exclusive mode');
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
  it(`${workload.write.route} answers 503 with Retry-After, and saves once the lock is released`, async () => {
    const { client } = await signedUpClient();
    const lock = await holdWriteLock(stack.database);
    try {
      const busy = await workload.write.send(client, DATE, 0);
      expect(busy.status).toBe(503);
      expect(busy.headers.get('retry-after')).toBe('1');
      expect(await bodyOf<ApiError>(busy)).toMatchObject({ error: 'busy', message: expect.stringContaining('try again') });
    } finally {
      await lock.release();
    }
    await writeDay(client, DATE, 0);
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
    // The burst starts once the other process writes (its start-up takes seconds on a busy machine).
    const otherWriter = start(process.execPath, ['--import', 'tsx', OUTBOX_WRITER], {
      PATH: process.env.PATH,
      ...stack.env,
      EMAIL: otherEmail,
      KIND: workload.syncKind,
      WRITE_MS: '3000',
    });
    await otherWriter.waitForOutput(/^writing$/m);
    const limit = pLimit(10);
    const statuses = await Promise.all(
      Array.from({ length: 200 }, (_, index) =>
        limit(async () => {
          const response = await writeOnDay(client, index);
          await response.arrayBuffer();
          return response.status;
        }),
      ),
    );

    expect(statuses.filter((status) => status < 200 || status >= 300)).toEqual([]);
    const [report] = await otherWriter.waitForOutput(/^\{.*\}$/m);
    const { written, failed } = JSON.parse(report) as { written: number; failed: string[] };
    expect(otherWriter.output().trim().split('\n'), 'the other process prints nothing else').toEqual(['writing', report]);
    expect(failed).toEqual([]);
    expect(written).toBeGreaterThan(0);
  }, 30_000);
});

describe('while the database cannot be written (a full disk)', () => {
  /**
   * Writes fail as on a full disk: SQLITE_FULL once the file may grow no further (SQLite's own
   * limit on its pages), or Postgres's disk_full for every new outbox entry (every change of a new
   * day makes one).
   */
  async function fillTheDisk(): Promise<{ free(): Promise<void> }> {
    if (stack.database.kind === 'postgres') {
      const refusal = await refuseInserts(stack.db, 'outbox', 'disk_full');
      return { free: () => refusal.allow() };
    }
    const { rows } = await sql<{ page_count: number }>`pragma page_count`.execute(stack.db);
    await sql.raw(`pragma max_page_count = ${rows[0]!.page_count}`).execute(stack.db);
    return { free: async () => void (await sql`pragma max_page_count = 1073741823`.execute(stack.db)) };
  }

  it(`${workload.write.route} answers 503, every write acknowledged before is kept, and it saves again once there is room`, async () => {
    const { client } = await signedUpClient();
    await writeDay(client, DATE);
    /** What the app held right after each acknowledged write, by day. */
    const acknowledged = new Map([[DATE, await appDay(client, DATE)]]);
    const disk = await fillTheDisk();
    let refused: Response | undefined;
    try {
      // A transaction that cannot write fails, and the database rolls it back by itself. A new day
      // each time, so that each write grows the database.
      for (let index = 0; index < 400 && refused === undefined; index++) {
        const date = addDays('2025-01-01', index);
        const response = await workload.write.send(client, date, index);
        if (response.ok) {
          await response.arrayBuffer();
          acknowledged.set(date, await appDay(client, date));
        } else refused = response;
      }
      expect(refused?.status).toBe(503);
      expect(await bodyOf<ApiError>(refused!)).toMatchObject({ error: 'unavailable', message: expect.stringContaining('try again') });
    } finally {
      await disk.free();
    }
    for (const [date, held] of acknowledged) expect(await appDay(client, date), date).toEqual(held);
    await writeDay(client, DATE, 1);
  });
});
