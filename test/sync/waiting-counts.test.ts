import fc from 'fast-check';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/database.js';
import {
  forgetEntry,
  forgetGoneEntry,
  forgetScheduledRetries,
  markDirty,
  markFailed,
  markHistoryDirty,
  markSynced,
  needsSending,
  recordNextAttempt,
  type OutboxKey,
} from '../../src/sync/outbox.js';
import { syncKinds } from '../../src/sync/sync-kinds.js';
import { waitingEntries } from '../../src/sync/sync-statuses.js';
import { useMigratedDatabase } from '../helpers/database.js';
import { seedProperties } from '../helpers/property-seed.js';

/**
 * The metrics read how many entries wait from counts the store keeps as entries start and stop
 * waiting (triggers on the outbox), rather than counting the outbox. Whatever the app does to the
 * outbox, in whatever order, those counts are what counting the outbox would answer.
 */

seedProperties();
const db = useMigratedDatabase();

const PEOPLE = [1, 2, 17];
const NOW = new Date('2026-11-20T12:00:00Z');
const FAILURE = { problem: 'refused', text: '400 refused' } as const;

const key = fc.record({
  userId: fc.constantFrom(...PEOPLE),
  kind: fc.constantFrom(...syncKinds()),
  subject: fc.constantFrom('2026-11-01', '2026-11-02', '2026-11-03'),
});
const version = fc.integer({ min: 1, max: 4 });

/** What the app does to the outbox, each as the app does it. */
const change = fc.oneof(
  key.map((entry) => ({ name: 'a person changes it', run: (db: Db) => markDirty(db, entry, NOW) })),
  fc.array(key, { minLength: 1, maxLength: 4 }).map((entries) => ({
    name: 'an import',
    run: (db: Db) =>
      db.transaction().execute((trx) =>
        markHistoryDirty(
          trx,
          entries[0]!.userId,
          entries.map(({ kind, subject }) => ({ kind, subject })),
          NOW,
        ),
      ),
  })),
  fc.tuple(key, version).map(([entry, at]) => ({ name: `version ${at} sent`, run: (db: Db) => markSynced(db, entry, at, NOW) })),
  fc
    .tuple(key, version)
    .map(([entry, at]) => ({ name: `version ${at} refused`, run: (db: Db) => markFailed(db, entry, at, FAILURE, NOW) })),
  key.map((entry) => ({ name: 'a retry scheduled', run: (db: Db) => recordNextAttempt(db, entry, NOW) })),
  fc.constant({ name: 'the retries forgotten', run: (db: Db) => forgetScheduledRetries(db) }),
  key.map((entry) => ({ name: 'forgotten', run: (db: Db) => forgetEntry(db, entry) })),
  fc.tuple(key, version).map(([entry, at]) => ({ name: `forgotten at ${at}`, run: (db: Db) => forgetGoneEntry(db, entry, at) })),
  fc.constantFrom(...PEOPLE).map((userId) => ({ name: 'a person deleted', run: (db: Db) => deletePerson(db, userId) })),
);

async function deletePerson(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('users').where('id', '=', userId).execute();
  await addPerson(db, userId);
}

async function addPerson(db: Db, id: number): Promise<void> {
  await db
    .insertInto('users')
    .values({ id, email: `person${id}@example.com`, password_hash: 'x', timezone: 'UTC', created_at: NOW.toISOString() })
    .execute();
}

/** Counting the outbox: what the kept counts must answer. */
async function countedByKind(db: Db): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom('outbox')
    .select((eb) => ['kind', eb.fn.countAll<number | string>().as('entries')])
    .where(needsSending)
    .groupBy('kind')
    .execute();
  return Object.fromEntries(rows.map((row) => [row.kind, Number(row.entries)]));
}

async function keptByKind(db: Db): Promise<Record<string, number>> {
  return Object.fromEntries((await waitingEntries(db)).map((row) => [row.kind, row.entries]));
}

async function startEmpty(db: Db): Promise<void> {
  await db.deleteFrom('users').execute();
  for (const id of PEOPLE) await addPerson(db, id);
}

describe('the waiting counts the store keeps', () => {
  it('are what counting the outbox answers, after any run of the app’s changes to it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(change, { minLength: 1, maxLength: 25 }), async (changes) => {
        await startEmpty(db());
        for (const { run } of changes) await run(db());
        expect(await keptByKind(db())).toEqual(await countedByKind(db()));
        const { rows } = await sql<{ lowest: number | null }>`select min(entries) as lowest from outbox_waiting_counts`.execute(db());
        expect(Number(rows[0]?.lowest ?? 0)).toBeGreaterThanOrEqual(0);
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it('follow a statement that writes many entries at once, as a bulk import or a launch’s backlog does', async () => {
    await startEmpty(db());
    const [kind] = syncKinds();
    const entries = PEOPLE.flatMap((userId) =>
      Array.from({ length: 50 }, (_, day) => ({
        user_id: userId,
        kind: kind!,
        subject: `entry ${day}`,
        version: 2,
        synced_version: day % 3 === 0 ? 2 : 1,
        updated_at: NOW.toISOString(),
      })),
    );
    await db().insertInto('outbox').values(entries).execute();
    // A third of each person's entries sent: 33 of 50 wait.
    expect(await keptByKind(db())).toEqual({ [kind!]: 99 });
    await db().updateTable('outbox').set({ synced_version: 2 }).where('user_id', '=', PEOPLE[0]!).execute();
    expect(await keptByKind(db())).toEqual({ [kind!]: 66 });
    await db().deleteFrom('outbox').where('user_id', '=', PEOPLE[1]!).execute();
    expect(await keptByKind(db())).toEqual({ [kind!]: 33 });
  });

  it('give each waiting kind the change of the entry that has waited longest', async () => {
    await startEmpty(db());
    const [kind] = syncKinds();
    const oldest: OutboxKey = { userId: 2, kind: kind!, subject: '2026-11-01' };
    await markDirty(db(), oldest, new Date('2026-11-19T08:00:00Z'));
    await markDirty(db(), { ...oldest, subject: '2026-11-02' }, NOW);
    await markDirty(db(), { ...oldest, subject: '2026-11-03', userId: 1 }, new Date('2026-11-18T08:00:00Z'));
    await markSynced(db(), { ...oldest, subject: '2026-11-03', userId: 1 }, 1, NOW);
    expect(await waitingEntries(db())).toEqual([{ kind, entries: 2, oldestChange: new Date('2026-11-19T08:00:00Z') }]);
  });
});
