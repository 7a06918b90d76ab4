import { sql, type Kysely, type RawBuilder } from 'kysely';
import { onPostgres } from '../src/db/portable.js';

/**
 * On SQLite, a plain integer primary key gives a new row the highest id if that row was deleted: the
 * newest item deleted, the next one added took its id, so a retried DELETE or PATCH of the old item
 * (its 204 lost) reached the new one, and the service's records named two items by one id. The same
 * held for activities. With AUTOINCREMENT an id is never given twice. A Postgres identity column never
 * reuses one. SQLite cannot change a column's kind: each table is built again and its rows copied,
 * in one transaction (Kysely runs SQLite's migrations outside one): a disk full or a crash halfway
 * leaves the tables as they were, and the migration can run again.
 */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  if (onPostgres(db)) return;
  await rebuildBoth(db, sql`integer primary key autoincrement`);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (onPostgres(db)) return;
  await rebuildBoth(db, sql`integer primary key`);
}

function rebuildBoth(db: Kysely<any>, idColumn: RawBuilder<unknown>): Promise<void> {
  return db.transaction().execute(async (trx) => {
    await rebuildMealItems(trx, idColumn);
    await rebuildActivities(trx, idColumn);
  });
}

async function rebuildMealItems(db: Kysely<any>, idColumn: RawBuilder<unknown>): Promise<void> {
  await rebuild(
    db,
    'meal_items',
    sql`
    id ${idColumn},
    user_id integer not null references users (id) on delete cascade,
    name text not null,
    carbs double precision not null,
    protein double precision,
    fat double precision,
    kcal double precision,
    absorption_type text,
    logged_at text not null,
    local_date text not null,
    created_at text not null,
    updated_at text not null`,
  );
  await db.schema.createIndex('meal_items_by_user_and_day').on('meal_items').columns(['user_id', 'local_date']).execute();
}

async function rebuildActivities(db: Kysely<any>, idColumn: RawBuilder<unknown>): Promise<void> {
  await rebuild(
    db,
    'activities',
    sql`
    id ${idColumn},
    user_id integer not null references users (id) on delete cascade,
    sha256 text not null,
    name text not null,
    metadata text not null,
    file_name text not null,
    bytes integer not null,
    file_stored integer not null,
    created_at text not null,
    updated_at text not null,
    constraint activities_user_file_unique unique (user_id, sha256)`,
  );
}

/** Builds the table again with these columns and copies its rows, ids included (same column order). */
async function rebuild(db: Kysely<any>, table: string, columns: RawBuilder<unknown>): Promise<void> {
  const rebuilt = `${table}_rebuilt`;
  await sql`create table ${sql.table(rebuilt)} (${columns})`.execute(db);
  await sql`insert into ${sql.table(rebuilt)} select * from ${sql.table(table)}`.execute(db);
  await sql`drop table ${sql.table(table)}`.execute(db);
  await sql`alter table ${sql.table(rebuilt)} rename to ${sql.table(table)}`.execute(db);
}
