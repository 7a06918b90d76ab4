import type { Kysely } from 'kysely';
import { currentSchema } from '../../src/db/portable.js';
import { fieldNames } from '../../src/fields/field-values.js';
import type { NumericFields } from '../../src/fields/numeric-field.js';

/** A declared field's column: the field's name, its column's, and whether it holds whole numbers only. */
export interface DeclaredColumn {
  field: string;
  column: string;
  wholeNumbers: boolean;
}

export function declaredColumns(declarations: NumericFields<string>): DeclaredColumn[] {
  return fieldNames(declarations).map((field) => ({
    field,
    column: declarations[field]!.column,
    wholeNumbers: declarations[field]!.integer,
  }));
}

/** Column types that keep a fraction: SQLite's and Postgres's names for them (Kysely's introspection reports both). */
const DECIMAL_TYPES = ['double precision', 'float8', 'real', 'float4', 'numeric'];
const NUMBER_TYPES = [...DECIMAL_TYPES, 'integer', 'int4', 'int8', 'bigint', 'int2', 'smallint'];

/**
 * What the migrated `table` lacks for these declared fields, one sentence each: a column no
 * migration added, one that refuses null (a value not given), or one that would round a decimal
 * (Postgres stores 48.5 in an integer column as 49, silently).
 */
export async function declaredColumnProblems(db: Kysely<any>, table: string, declared: DeclaredColumn[]): Promise<string[]> {
  const schema = await currentSchema(db);
  const tables = await db.introspection.getTables();
  const found = tables.find((candidate) => candidate.name === table && (schema === undefined || candidate.schema === schema));
  if (!found) return [`there is no ${table} table: run the migrations`];
  return declared.flatMap(({ field, column, wholeNumbers }) => {
    const columnFound = found.columns.find((candidate) => candidate.name === column);
    if (!columnFound) return [`${field}: ${table} has no column ${column}: add a migration that adds it`];
    const type = columnFound.dataType.toLowerCase();
    if (!columnFound.isNullable) return [`${field}: column ${column} must allow null, for a value not given`];
    if (!NUMBER_TYPES.includes(type)) return [`${field}: column ${column} is ${type}, not a number`];
    if (!wholeNumbers && !DECIMAL_TYPES.includes(type))
      return [`${field}: column ${column} holds whole numbers only, and ${field} is declared with decimals`];
    return [];
  });
}
