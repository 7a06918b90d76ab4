import type { Kysely, Selectable } from 'kysely';
import type { Database, Db } from '../db/database.js';

/**
 * The pieces of the account's export (account-export.ts) a kind writes its fields with: JSON text,
 * each field starting with a comma, and arrays read in batches by key so that memory stays flat
 * however much the person logged.
 */

/** Rows read per query: an export of years of entries never holds them all in memory at once. */
export const EXPORT_BATCH = 500;

/** One field of the export object; undefined is written as null. */
export function exportField(name: string, value: unknown): string {
  return `,${JSON.stringify(name)}:${JSON.stringify(value ?? null)}`;
}

/** One array field of the export object, its values given in batches. */
export async function* exportArray(name: string, batches: AsyncGenerator<unknown[]>): AsyncGenerator<string> {
  yield `,${JSON.stringify(name)}:[`;
  let first = true;
  for await (const batch of batches) {
    for (const value of batch) {
      yield `${first ? '' : ','}${JSON.stringify(value)}`;
      first = false;
    }
  }
  yield ']';
}

/** The tables whose rows each belong to one person. */
type PersonTable = { [T in keyof Database]: Database[T] extends { user_id: number } ? T : never }[keyof Database];

/** A column that orders the person's rows of a table one way only: its id, or its date for a daily kind. */
type RowKey<T extends PersonTable> = keyof Selectable<Database[T]> & string;

/** The person's rows of `table` in batches, ordered by `key`, each batch starting after the last key read. */
export function personRows<T extends PersonTable>(
  db: Db,
  table: T,
  key: RowKey<T>,
  userId: number,
): AsyncGenerator<Selectable<Database[T]>[]> {
  // Kysely cannot type a query over a table named by a type parameter: the query is built on an
  // untyped view of the same database, and its rows are the table's.
  const untyped = db as unknown as Kysely<Record<string, Record<string, string | number>>>;
  const column: string = key;
  return keyed(
    (after: string | number | undefined) =>
      untyped
        .selectFrom(table as string)
        .selectAll()
        .where('user_id', '=', userId)
        .$if(after !== undefined, (query) => query.where(column, '>', after!))
        .orderBy(column)
        .limit(EXPORT_BATCH)
        .execute() as Promise<Selectable<Database[T]>[]>,
    (row) => row[key] as string | number,
  );
}

/** Reads `next(after)` until it returns fewer than a batch, each batch starting after the last key read. */
async function* keyed<Row, Key>(next: (after: Key | undefined) => Promise<Row[]>, keyOf: (row: Row) => Key): AsyncGenerator<Row[]> {
  let after: Key | undefined;
  for (;;) {
    const rows = await next(after);
    yield rows;
    if (rows.length < EXPORT_BATCH) return;
    after = keyOf(rows.at(-1)!);
  }
}
