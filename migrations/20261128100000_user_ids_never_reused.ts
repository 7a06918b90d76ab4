import { sql, type Kysely } from 'kysely';
import { onPostgres } from '../src/db/portable.js';

/**
 * Accounts can now be deleted. On SQLite a plain integer primary key gives a new row the id of the
 * newest row deleted, and whatever still named the deleted person by id (a session in Redis left by
 * an outage, a job queued for them) would then name the next person to sign up. Databases made
 * since migration 20261121194000 used AUTOINCREMENT already; older ones get their `users` table
 * built again with it, rows and ids kept. The other tables refer to `users` by name, so foreign keys
 * are off while it is replaced (SQLite's own recipe for changing a table), and checked after. A
 * Postgres identity column never reuses an id.
 */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  if (onPostgres(db) || (await usesAutoincrement(db))) return;
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await sql`create table users_rebuilt (
        id integer primary key autoincrement,
        email text not null unique,
        password_hash text not null,
        timezone text not null,
        created_at text not null)`.execute(trx);
      await sql`insert into users_rebuilt (id, email, password_hash, timezone, created_at)
        select id, email, password_hash, timezone, created_at from users`.execute(trx);
      await sql`drop table users`.execute(trx);
      await sql`alter table users_rebuilt rename to users`.execute(trx);
      const { rows } = await sql`pragma foreign_key_check`.execute(trx);
      if (rows.length > 0) throw new Error(`rebuilding users left ${rows.length} rows without their user`);
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

async function usesAutoincrement(db: Kysely<any>): Promise<boolean> {
  const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where type = 'table' and name = 'users'`.execute(db);
  return /autoincrement/i.test(rows[0]?.sql ?? '');
}
