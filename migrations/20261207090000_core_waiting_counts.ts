import { sql, type Kysely } from 'kysely';
import { onPostgres } from '../src/db/portable.js';

/**
 * How many outbox entries wait to be sent, per kind, kept by the store itself: triggers on the
 * outbox add or take one as an entry starts or stops waiting, in the same transaction as the change,
 * so the metrics read a few rows instead of counting millions of waiting entries at a launch
 * (docs/architecture.md, "Background reads"). Each kind's count is split over SHARDS rows by person,
 * so that people's transactions on Postgres seldom wait for each other's count row; the reader
 * adds them up. Whether an entry waits is needsSending (src/sync/outbox.ts), written here in SQL:
 * change one, change the other in a migration.
 */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.

const SHARDS = 16;

/** needsSending of the entry `row` (new, old, or a transition table's row). */
const waiting = (row: string) =>
  `((${row}.synced_version is null or ${row}.synced_version < ${row}.version) and (${row}.failed_version is null or ${row}.failed_version < ${row}.version))`;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('outbox_waiting_counts')
    .addColumn('kind', 'text', (column) => column.notNull())
    .addColumn('shard', 'integer', (column) => column.notNull())
    .addColumn('entries', 'integer', (column) => column.notNull())
    .addPrimaryKeyConstraint('outbox_waiting_counts_pk', ['kind', 'shard'])
    .execute();
  await sql`
    insert into outbox_waiting_counts (kind, shard, entries)
    select kind, user_id % ${sql.lit(SHARDS)}, count(*) from outbox as entry where ${sql.raw(waiting('entry'))} group by 1, 2`.execute(db);
  if (onPostgres(db)) await countOnPostgres(db);
  else await countOnSqlite(db);
}

/**
 * Statement triggers with transition tables: a statement that writes many entries (a bulk import)
 * changes each count it touches once. The counts are upserted in key order, so two statements never
 * wait for each other's count rows in a circle.
 */
async function countOnPostgres(db: Kysely<any>): Promise<void> {
  const add = (changes: string) =>
    sql.raw(`
      insert into outbox_waiting_counts as counts (kind, shard, entries)
      select kind, shard, sum(change) from (${changes}) as changes
      group by kind, shard having sum(change) <> 0 order by kind, shard
      on conflict (kind, shard) do update set entries = counts.entries + excluded.entries;`);
  const counted = (table: string, change: number) =>
    `select kind, user_id % ${SHARDS} as shard, ${change} as change from ${table} as entry where ${waiting('entry')}`;
  await sql`
    create function outbox_waiting_counts_follow() returns trigger language plpgsql as $$
    begin
      if tg_op = 'INSERT' then
        ${add(counted('new_entries', 1))}
      elsif tg_op = 'DELETE' then
        ${add(counted('old_entries', -1))}
      else
        ${add(`${counted('new_entries', 1)} union all ${counted('old_entries', -1)}`)}
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger outbox_waiting_counts_on_insert after insert on outbox
    referencing new table as new_entries for each statement execute function outbox_waiting_counts_follow()`.execute(db);
  await sql`
    create trigger outbox_waiting_counts_on_update after update on outbox
    referencing old table as old_entries new table as new_entries for each statement execute function outbox_waiting_counts_follow()`.execute(
    db,
  );
  await sql`
    create trigger outbox_waiting_counts_on_delete after delete on outbox
    referencing old table as old_entries for each statement execute function outbox_waiting_counts_follow()`.execute(db);
}

/**
 * Row triggers (SQLite has no others), each only when the entry starts or stops waiting. SQLite
 * writes one transaction at a time, so no count row is ever waited for.
 */
async function countOnSqlite(db: Kysely<any>): Promise<void> {
  const add = (row: string, change: string) =>
    sql.raw(`
      insert into outbox_waiting_counts (kind, shard, entries) values (${row}.kind, ${row}.user_id % ${SHARDS}, ${change})
      on conflict (kind, shard) do update set entries = entries + excluded.entries;`);
  await sql`
    create trigger outbox_waiting_counts_on_insert after insert on outbox when ${sql.raw(waiting('new'))}
    begin ${add('new', '1')} end`.execute(db);
  // An entry's kind and person never change: only whether it waits.
  await sql`
    create trigger outbox_waiting_counts_on_update after update on outbox when ${sql.raw(waiting('old'))} is not ${sql.raw(waiting('new'))}
    begin ${add('new', `case when ${waiting('new')} then 1 else -1 end`)} end`.execute(db);
  await sql`
    create trigger outbox_waiting_counts_on_delete after delete on outbox when ${sql.raw(waiting('old'))}
    begin ${add('old', '-1')} end`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const onOutbox = sql.raw(onPostgres(db) ? ' on outbox' : '');
  for (const event of ['insert', 'update', 'delete'])
    await sql`drop trigger ${sql.raw(`outbox_waiting_counts_on_${event}`)}${onOutbox}`.execute(db);
  if (onPostgres(db)) await sql`drop function outbox_waiting_counts_follow()`.execute(db);
  await db.schema.dropTable('outbox_waiting_counts').execute();
}
