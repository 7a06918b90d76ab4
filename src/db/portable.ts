import { PostgresAdapter, sql, type ColumnDefinitionBuilder, type Kysely } from 'kysely';

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

/**
 * The schema the app's tables are created in: Postgres's first schema on the search_path; none for
 * SQLite, whose file is the schema.
 */
export async function currentSchema(db: Kysely<any>): Promise<string | undefined> {
  if (!onPostgres(db)) return undefined;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema;
}
