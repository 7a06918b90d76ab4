import type { Kysely } from 'kysely';
import { currentSchema } from '../../src/db/portable.js';
import { measurementNames, type MeasurementDeclarations } from '../../src/wellness/measurement-declaration.js';

/** Column types that keep a fraction: SQLite's and Postgres's names for them (Kysely's introspection reports both). */
const DECIMAL_TYPES = ['double precision', 'float8', 'real', 'float4', 'numeric'];
const NUMBER_TYPES = [...DECIMAL_TYPES, 'integer', 'int4', 'int8', 'bigint', 'int2', 'smallint'];

/**
 * What the migrated wellness_days lacks for these declared measurements, one sentence each: a column
 * no migration added, one that refuses null (a measurement not entered), or one that would round a
 * decimal measurement (Postgres stores 48.5 in an integer column as 49, silently).
 */
export async function measurementColumnProblems(db: Kysely<any>, declarations: MeasurementDeclarations): Promise<string[]> {
  const schema = await currentSchema(db);
  const tables = await db.introspection.getTables();
  const table = tables.find((candidate) => candidate.name === 'wellness_days' && (schema === undefined || candidate.schema === schema));
  if (!table) return ['there is no wellness_days table: run the migrations'];
  return measurementNames(declarations).flatMap((name) => {
    const { column, integer } = declarations[name]!;
    const found = table.columns.find((candidate) => candidate.name === column);
    if (!found) return [`${name}: wellness_days has no column ${column}: add a migration that adds it`];
    const type = found.dataType.toLowerCase();
    if (!found.isNullable) return [`${name}: column ${column} must allow null, for a day it was not entered`];
    if (!NUMBER_TYPES.includes(type)) return [`${name}: column ${column} is ${type}, not a number`];
    if (!integer && !DECIMAL_TYPES.includes(type)) return [`${name}: column ${column} holds whole numbers only, and the measurement is declared integer: false`];
    return [];
  });
}
