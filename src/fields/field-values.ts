import type { ChangesOf, ColumnsOf, NumericFields, RecordFieldsOf, ValuesOf } from './numeric-field.js';

/** The names of the declared fields, in the order declared (the order of the page and the tables). */
export function fieldNames<Fields extends NumericFields<string>>(fields: Fields): Array<keyof Fields & string> {
  return Object.keys(fields);
}

/** The values as stored: one not given is null in its column. */
export function columnsOf<Fields extends NumericFields<string>>(fields: Fields, values: ValuesOf<Fields>): ColumnsOf<Fields> {
  return Object.fromEntries(fieldNames(fields).map((name) => [fields[name]!.column, values[name] ?? null])) as ColumnsOf<Fields>;
}

/** The columns a change sets: only the fields it names, null for one it removes. */
export function columnChangesOf<Fields extends NumericFields<string>>(
  fields: Fields,
  changes: ChangesOf<Fields>,
): Partial<ColumnsOf<Fields>> {
  return Object.fromEntries(
    fieldNames(fields).flatMap((name) => (changes[name] === undefined ? [] : [[fields[name]!.column, changes[name]]])),
  ) as Partial<ColumnsOf<Fields>>;
}

/** The values of a stored row; one not given is absent, never null. */
export function valuesOfRow<Fields extends NumericFields<string>>(fields: Fields, row: ColumnsOf<Fields>): ValuesOf<Fields> {
  const columns: Record<string, number | null> = row;
  return Object.fromEntries(
    fieldNames(fields).flatMap((name) => {
      const value = columns[fields[name]!.column];
      return value === null || value === undefined ? [] : [[name, value]];
    }),
  ) as ValuesOf<Fields>;
}

/** The values given, in the order declared, of every field or of those declared sent as `sent`. */
export function valuesSentAs<Fields extends NumericFields<string>>(
  fields: Fields,
  values: ValuesOf<Fields>,
  sent?: 'record' | 'rawJson',
): ValuesOf<Fields> {
  return given(fields, values, sent);
}

/** The values given of the fields sent as fields of the record, typed as such. */
export function recordFieldsOf<Fields extends NumericFields<string>>(fields: Fields, values: ValuesOf<Fields>): RecordFieldsOf<Fields> {
  return given(fields, values, 'record');
}

function given<Fields extends NumericFields<string>>(
  fields: Fields,
  values: ValuesOf<Fields>,
  sent?: 'record' | 'rawJson',
): Record<string, number> {
  const names = fieldNames(fields).filter((name) => sent === undefined || fields[name]!.sent === sent);
  return Object.fromEntries(names.flatMap((name) => (values[name] === undefined ? [] : [[name, values[name]]])));
}
