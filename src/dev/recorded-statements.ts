import { CompiledQuery } from 'kysely';
import type { Db } from '../db/database.js';

/** The same database, with every statement run through it kept as it was sent (its SQL and parameters). */
export interface RecordingDb {
  db: Db;
  statements: CompiledQuery[];
  /** The statements so far that read or write `table`. */
  on(table: string): CompiledQuery[];
}

export function recordingStatements(db: Db): RecordingDb {
  const statements: CompiledQuery[] = [];
  const recording = db.withPlugin({
    transformQuery: ({ node, queryId }) => {
      statements.push(db.getExecutor().compileQuery(node, queryId));
      return node;
    },
    transformResult: async ({ result }) => result,
  });
  return { db: recording, statements, on: (table) => statements.filter((statement) => statement.sql.includes(`"${table}"`)) };
}

/** How the database would run a statement, one line per step of its plan: EXPLAIN, or SQLite's EXPLAIN QUERY PLAN. */
export async function planOf(db: Db, kind: 'sqlite' | 'postgres', statement: CompiledQuery): Promise<string[]> {
  const explain = kind === 'sqlite' ? 'explain query plan ' : 'explain ';
  const { rows } = await db.executeQuery<Record<string, unknown>>(CompiledQuery.raw(explain + statement.sql, [...statement.parameters]));
  return rows.map((row) => String(kind === 'sqlite' ? row.detail : row['QUERY PLAN']));
}
