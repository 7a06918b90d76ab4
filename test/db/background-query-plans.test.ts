import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { connectedConnectionsAfter } from '../../src/connections/connection.repository.js';
import type { Db } from '../../src/db/database.js';
import { peopleInTurnOrder } from '../../src/sync/history.js';
import { nextFreshChangeAfter, peopleWithFreshChangesDue } from '../../src/sync/lanes.js';
import { forgetScheduledRetries } from '../../src/sync/outbox.js';
import { syncKinds } from '../../src/sync/sync-kinds.js';
import { waitingEntries } from '../../src/sync/sync-statuses.js';
import { testDatabaseKind, useMigratedDatabase } from '../helpers/database.js';
import { planOf, recordingStatements } from '../../src/dev/recorded-statements.js';

/**
 * The statements the workers run in the background, whatever a person does, read the outbox and
 * the connections through an index, never the whole table: at a partner's launch the outbox holds
 * tens of millions of entries. Each is checked by the plan the database makes for it, on a store
 * seeded with a few thousand rows, mostly synced as they are once a launch has drained, and analyzed,
 * so that the planner weighs an index against reading the table as it would in production.
 */

const PEOPLE = 2000;
const DAYS = 4;
const NOW = new Date('2026-11-20T12:00:00Z');
const minutesAgo = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000).toISOString();

const db = useMigratedDatabase();

beforeAll(async () => {
  await seed();
  await sql`analyze`.execute(db());
}, 60_000);

async function seed(): Promise<void> {
  const people = Array.from({ length: PEOPLE }, (_, index) => index + 1);
  const [kind, otherKind] = [syncKinds()[0]!, syncKinds().at(-1)!];
  await inChunks(
    people.map((id) => ({ id, email: `person${id}@example.com`, password_hash: 'x', timezone: 'UTC', created_at: minutesAgo(60_000) })),
    (rows) => db().insertInto('users').values(rows).execute(),
  );
  await inChunks(
    people.map((id) => ({
      user_id: id,
      grant_id: `grant-${id}`,
      token_key_id: 'key',
      access_token_sealed: 'sealed'.repeat(60),
      refresh_token_sealed: 'sealed'.repeat(60),
      issued_at: minutesAgo(600),
      expires_at: minutesAgo(-600),
      refresh_expires_at: null,
      scopes: 'read write',
      status: id % 12 === 0 ? ('needs_reconnect' as const) : ('connected' as const),
      version: 1,
      created_at: minutesAgo(60_000),
      updated_at: minutesAgo(600),
    })),
    (rows) => db().insertInto('connections').values(rows).execute(),
  );
  const entries = people.flatMap((id) =>
    Array.from({ length: DAYS }, (_, day) => {
      const waiting = id % 10 === 0 || (id % 50 === 1 && day === 0);
      return {
        user_id: id,
        kind: day % 2 === 0 ? kind : otherKind,
        subject: `2026-11-${String(day + 1).padStart(2, '0')}`,
        version: 2,
        synced_version: waiting ? 1 : 2,
        synced_at: minutesAgo(1000),
        updated_at: minutesAgo(1000 - id),
        fresh_at: id % 50 === 1 && day === 0 ? minutesAgo(id % 3) : null,
        next_attempt_at: id % 40 === 0 && day === 0 ? minutesAgo(-5) : null,
      };
    }),
  );
  await inChunks(entries, (rows) => db().insertInto('outbox').values(rows).execute());
  const withHistory = people.filter((id) => id % 2 === 0);
  await inChunks(
    withHistory.map((id) => ({ user_id: id, started_at: minutesAgo(100), total: DAYS, last_turn_at: minutesAgo(id % 97) })),
    (rows) => db().insertInto('histories').values(rows).execute(),
  );
}

async function inChunks<T>(rows: T[], insert: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < rows.length; start += 400) await insert(rows.slice(start, start + 400));
}

/** Every statement `run` sends to the store, each with the plan the store makes for it. */
async function plansOf(run: (db: Db) => Promise<unknown>): Promise<Array<{ sql: string; plan: string[] }>> {
  const recording = recordingStatements(db());
  await run(recording.db);
  expect(recording.statements.length).toBeGreaterThan(0);
  return Promise.all(
    recording.statements.map(async (statement) => ({ sql: statement.sql, plan: await planOf(db(), testDatabaseKind(), statement) })),
  );
}

/** Tables that hold a few rows whatever the outbox holds: the waiting counts, at most 16 rows a kind. */
const SMALL_TABLES = ['outbox_waiting_counts'];

/** The plan's steps that read a whole table other than a small one: SQLite's SCAN without an index, Postgres's Seq Scan. */
function tableScans(plan: string[]): string[] {
  return plan
    .filter((step) =>
      testDatabaseKind() === 'sqlite' ? /^SCAN \w+$/.test(step.trim()) || /^SCAN \w+ (?!USING)/.test(step.trim()) : /Seq Scan/.test(step),
    )
    .filter((step) => !SMALL_TABLES.some((table) => new RegExp(`\\b${table}\\b`).test(step)));
}

const BACKGROUND_STATEMENTS: Array<{ name: string; run: (db: Db) => Promise<unknown>; index: RegExp }> = [
  // The kept counts (a small table), then the oldest waiting entry of each kind that has one.
  { name: "the metrics' waiting counts", run: (db) => waitingEntries(db), index: /outbox_waiting/ },
  {
    name: 'forgetting the scheduled retries when Redis lost the queue',
    run: (db) => forgetScheduledRetries(db),
    index: /outbox_retries_scheduled/,
  },
  {
    name: "the keep-alive's first page",
    run: (db) => connectedConnectionsAfter(db, 0, 100),
    index: /connections_pkey|INTEGER PRIMARY KEY/,
  },
  {
    name: "the keep-alive's next page",
    run: (db) => connectedConnectionsAfter(db, 300, 100),
    index: /connections_pkey|INTEGER PRIMARY KEY/,
  },
  {
    name: "the fresh poller's people with changes due",
    run: (db) => peopleWithFreshChangesDue(db, new Date(NOW.getTime() - 60_000), NOW, 1000),
    index: /outbox_fresh/,
  },
  {
    name: "the fresh poller's next change",
    run: (db) => nextFreshChangeAfter(db, new Date(NOW.getTime() - 60_000)),
    index: /outbox_fresh/,
  },
  { name: "the sweeper's head of the rotation", run: (db) => peopleInTurnOrder(db, 200), index: /histories_in_turn_order/ },
];

describe('every background statement reads through an index, never a whole table', () => {
  it.each(BACKGROUND_STATEMENTS)('$name', async ({ run, index }) => {
    for (const { sql: statement, plan } of await plansOf(run)) {
      expect(tableScans(plan), `${statement}\n${plan.join('\n')}`).toEqual([]);
      expect(plan.join('\n'), statement).toMatch(index);
    }
  });
});
