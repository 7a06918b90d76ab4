import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabaseUnreachableError } from '../../src/db/database-unreachable-error.js';
import { onServer, openDb, testDatabaseKind } from '../helpers/database.js';
import { connectedUser } from '../helpers/flows.js';
import { workload, writeDay } from '../helpers/kinds.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { syncStatus } from '../helpers/sync-status.js';
import { startSync } from '../helpers/sync-worker.js';
import { eventually } from '../helpers/wait.js';

/**
 * The Postgres server closes a connection of the app's (an operator's pg_terminate_backend, a
 * restart, a failover, a proxy's reset). Before, a connection the app held at that moment emitted
 * an error with no listener, which ended the whole process. These tests run in this process: such
 * an error fails the run.
 */

let stack: Stack;

function serverUrl(): string {
  if (stack.database.kind !== 'postgres') throw new Error('only Postgres');
  return stack.database.serverUrl;
}

/** The server ends every connection to the app's database but the one asking and `spared`, as pg_terminate_backend does. */
async function closeEveryConnection(spared = 0): Promise<void> {
  await onServer(
    serverUrl(),
    `select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and pid <> ${spared}`,
  );
}

/** Resolves once some connection to the app's database waits for a lock. */
async function someoneWaitsForALock(): Promise<void> {
  await eventually('a query waiting for the lock', async () => {
    const client = new pg.Client({ connectionString: serverUrl() });
    await client.connect();
    try {
      const { rows } = await client.query("select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'");
      return rows.length > 0 ? true : undefined;
    } finally {
      await client.end();
    }
  });
}

describe.runIf(testDatabaseKind() === 'postgres')('a Postgres connection closed by the server', () => {
  beforeAll(async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
  });
  afterAll(async () => {
    await stack.close();
  });

  it('fails what the app was doing on it as DatabaseUnreachableError, and the next query gets a new connection', async () => {
    const db = openDb(stack.database);
    try {
      const inTransaction = db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        await closeEveryConnection();
        // The connection is checked out and idle when the server's goodbye arrives.
        await sleep(200);
        await sql`select 1`.execute(trx);
      });
      await expect(inTransaction).rejects.toBeInstanceOf(DatabaseUnreachableError);
      // Its failure, if it fails, is caught from the start: it may come while the connections are closed.
      const mid = db
        .selectFrom('users')
        .select('id')
        .execute()
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      await closeEveryConnection();
      const midFailure = await mid;
      if (midFailure !== undefined) expect(midFailure).toBeInstanceOf(DatabaseUnreachableError);
      // The pool drops an idle connection when the server's goodbye reaches it, which a busy machine can delay.
      await sleep(1000);
      expect(await db.selectFrom('users').select('id').execute()).toEqual(expect.any(Array));
    } finally {
      await db.destroy();
    }
  });

  it('leaves the web answering: acknowledged (2xx) or 503 while connections are closed under load, then acknowledged again', async () => {
    const clients = await Promise.all([1, 2, 3].map(() => connectedUser(stack)));
    const statuses: number[] = [];
    let writing = true;
    const writers = clients.map(async ({ client }) => {
      for (let n = 0; writing; n++) {
        const response = await workload.write.send(client, `2026-01-${String((n % 28) + 1).padStart(2, '0')}`, n);
        statuses.push(response.status);
        await response.body?.cancel();
      }
    });
    for (let round = 0; round < 4; round++) {
      await sleep(150);
      await closeEveryConnection();
    }
    await sleep(150);
    writing = false;
    await Promise.all(writers);
    expect(statuses.filter((status) => (status < 200 || status > 299) && status !== 503)).toEqual([]);
    for (const { client } of clients) await writeDay(client, '2026-02-01');
  });

  it('leaves a sync worker working when its connection is closed mid-job: the days reach the service', async () => {
    const { client } = await connectedUser(stack);
    const days = ['2026-04-01', '2026-04-02', '2026-04-03'];
    for (const date of days) await writeDay(client, date);
    // Another connection locks the outbox, so that a job's write waits on a connection it holds.
    const holder = new pg.Client({ connectionString: stack.database.url });
    await holder.connect();
    await holder.query('begin');
    await holder.query('lock table outbox in exclusive mode');
    const holderPid = (await holder.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0]!.pid;
    const worker = await startSync(stack);
    try {
      await someoneWaitsForALock();
      await closeEveryConnection(holderPid);
      await holder.query('rollback');
      await eventually('every day synced', async () => {
        const synced = await syncStatus(client, days[0]!, days.at(-1)).catch(() => undefined);
        return synced?.length === days.length && synced.every((day) => day.status === 'synced') ? true : undefined;
      });
    } finally {
      await holder.end();
      await worker.close();
    }
  });
});
