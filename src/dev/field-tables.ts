import type { FieldSet } from '../fields/numeric-field.js';

/**
 * Declared fields as Markdown tables, for `npm run fields`. The declarations are the only list of
 * fields; the docs point here rather than keep a copy that each new field would have to update.
 */

/** How a declaration's `sent` reads in a table. */
const SENT_AS = { record: 'own field', rawJson: 'rawJson' } as const;

function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A kind's fields, in the order declared: unit, bounds (a configured limit by its variable), whether a whole number, how each is sent. */
export function fieldTable({ fields, limitVariables }: FieldSet): string {
  const rows = Object.entries(fields).map(([name, { unit, min, max, integer, sent }]) => [
    `\`${name}\``,
    unit,
    String(min),
    typeof max === 'number' ? String(max) : `\`${limitVariables[max]}\``,
    integer ? 'yes' : 'no',
    SENT_AS[sent],
  ]);
  return markdownTable(['Field', 'Unit', 'From', 'To', 'Whole number', 'Sent as'], rows);
}

/** Each set under its title. */
export function fieldTables(sets: FieldSet[]): string {
  return sets.map((set) => `## ${set.title}\n\n${fieldTable(set)}`).join('\n\n');
}
