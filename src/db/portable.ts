import { PostgresAdapter, sql, type ColumnDefinitionBuilder, type Kysely, type SelectQueryBuilder } from 'kysely';

/**
 * What SQLite and Postgres spell differently, in one place, so that migrations and repositories
 * stay the same on both.
 */

function onPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/** An integer primary key the database numbers: SQLite's rowid alias, a Postgres identity column. */
export function autoIncrementPrimaryKey(db: Kysely<any>) {
  return (column: ColumnDefinitionBuilder) =>
    onPostgres(db) ? column.primaryKey().generatedByDefaultAsIdentity() : column.primaryKey();
}

/** A column of raw bytes, stored and returned untouched: SQLite's blob, Postgres's bytea. */
export function binaryColumnType(db: Kysely<any>): 'blob' | 'bytea' {
  return onPostgres(db) ? 'bytea' : 'blob';
}

/**
 * Locks the selected rows until the transaction ends, so a transaction that reads and then writes
 * on what it read is not interleaved with another doing the same (Postgres runs them at once).
 * SQLite needs no lock: every transaction of the app already holds its one write lock from BEGIN
 * (sqlite-dialect.ts), and it has no FOR UPDATE.
 */
export function forUpdate<DB, TB extends keyof DB, O>(
  db: Kysely<DB>,
  query: SelectQueryBuilder<DB, TB, O>,
): SelectQueryBuilder<DB, TB, O> {
  return onPostgres(db) ? query.forUpdate() : query;
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
