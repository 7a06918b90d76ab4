import { PostgresAdapter, sql, type ColumnDefinitionBuilder, type Kysely, type SelectQueryBuilder } from 'kysely';

/**
 * What SQLite and Postgres spell differently, in one place, so that migrations and repositories
 * stay the same on both.
 */

export function onPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * An integer primary key the database numbers and never gives twice: a Postgres identity column;
 * on SQLite AUTOINCREMENT, without which a deleted newest row's id goes to the next row, and a
 * delete or edit sent again (its answer lost) reaches that row.
 */
export function autoIncrementPrimaryKey(db: Kysely<any>) {
  return (column: ColumnDefinitionBuilder) =>
    onPostgres(db) ? column.primaryKey().generatedByDefaultAsIdentity() : column.primaryKey().autoIncrement();
}

/** A column of raw bytes, stored and returned untouched: SQLite's blob, Postgres's bytea. */
export function binaryColumnType(db: Kysely<any>): 'blob' | 'bytea' {
  return onPostgres(db) ? 'bytea' : 'blob';
}

/**
 * Locks the selected rows until the transaction ends, so a transaction that reads and then writes
 * on what it read is not interleaved with another doing the same (Postgres runs them at once).
 * SQLite needs no lock, and the query is neither built nor run there: every transaction of the
 * app already holds its one write lock from BEGIN (sqlite-dialect.ts), and it has no FOR UPDATE.
 */
export async function lockRows<DB, TB extends keyof DB, O>(db: Kysely<DB>, rows: () => SelectQueryBuilder<DB, TB, O>): Promise<void> {
  if (onPostgres(db)) await rows().forUpdate().execute();
}

/** lockRows for a transaction that also needs what it locks (whether a row is still there): one query on either database. */
export async function readAndLockRows<DB, TB extends keyof DB, O>(db: Kysely<DB>, rows: () => SelectQueryBuilder<DB, TB, O>): Promise<O[]> {
  return onPostgres(db) ? rows().forUpdate().execute() : rows().execute();
}

/**
 * The schema the app's tables are created in: Postgres's first schema on the search_path; none for
 * SQLite, whose file is the schema.
 */
export async function currentSchema(db: Kysely<any>): Promise<string | undefined> {
  if (!onPostgres(db)) return undefined;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema;
}
