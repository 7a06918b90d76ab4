import { sql } from 'kysely';
import type { Db } from '../../src/db/database.js';
import type { TestDatabase } from './database.js';

/**
 * Every cell of every table of the stack's database that names the person: a `user_id` (or the
 * users table's `id`) equal to theirs, or text holding their email or a key of their files
 * (`<id>/…`). Read from the catalog, so a table added later is scanned too.
 */
export async function cellsNaming(db: Db, database: TestDatabase, person: { id: number; email: string }): Promise<string[]> {
  const found: string[] = [];
  for (const table of await tableNames(db, database)) {
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table)}`.execute(db);
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        const namesId = (column === 'user_id' || (table === 'users' && column === 'id')) && Number(value) === person.id;
        const namesEmail = typeof value === 'string' && (value.includes(person.email) || value.startsWith(`${person.id}/`));
        if (namesId || namesEmail) found.push(`${table}.${column} = ${String(value)}`);
      }
    }
  }
  return found;
}

async function tableNames(db: Db, database: TestDatabase): Promise<string[]> {
  const { rows } =
    database.kind === 'sqlite'
      ? await sql<{
          name: string;
        }>`select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'kysely_%'`.execute(db)
      : await sql<{
          name: string;
        }>`select table_name as name from information_schema.tables where table_schema = ${database.schema} and table_name not like 'kysely_%'`.execute(
          db,
        );
  return rows.map((row) => row.name);
}
