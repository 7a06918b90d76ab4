import type { AmountDeclarations } from '../nutrition/amount-declaration.js';
import type { MeasurementDeclarations } from '../wellness/measurement-declaration.js';

/**
 * Declared fields as Markdown tables, for `npm run fields`. The declarations are the only list of
 * fields; the docs point here rather than keep a copy that each new field would have to update.
 */

/** How a declaration's `sent` reads in a table. */
const SENT_AS = { record: 'own field', rawJson: 'rawJson' } as const;

/** A limit set by configuration, named by its variable. */
const LIMIT_VARIABLES = { maxGrams: 'MEAL_MAX_GRAMS', maxKcal: 'MEAL_MAX_KCAL' } as const;

function markdownTable(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** Meal item amounts: unit, most (a configured limit by its variable), how each is sent. */
export function amountTable(amounts: AmountDeclarations): string {
  const rows = Object.entries(amounts).map(([name, { unit, max, sent }]) => {
    const most = typeof max === 'number' ? String(max) : `\`${LIMIT_VARIABLES[max]}\``;
    return [`\`${name}\``, unit, most, SENT_AS[sent]];
  });
  return markdownTable(['Field', 'Unit', 'Most', 'Sent as'], rows);
}

/** Wellness measurements: unit, bounds, whether a whole number, how each is sent. */
export function measurementTable(measurements: MeasurementDeclarations): string {
  const rows = Object.entries(measurements).map(([name, { unit, min, max, integer, sent }]) => [
    `\`${name}\``,
    unit,
    String(min),
    String(max),
    integer ? 'yes' : 'no',
    SENT_AS[sent],
  ]);
  return markdownTable(['Field', 'Unit', 'From', 'To', 'Whole number', 'Sent as'], rows);
}
