import { z } from 'zod';

/** A form field's text: empty when missing, or when sent twice (an array), so it alone is refused. */
export const formField = z.string().catch('');

/**
 * A form field's text as a JSON number when it is written as a decimal number, so one schema
 * validates both the JSON API and the form. Decimal numbers only: Number() would also take 0x10,
 * 0b101, 1e3 and Infinity. Anything else stays text, so the schema names the field.
 */
const DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A decimal comma, as many people type it: 12,5. Not with exactly three digits after it, which
 * could as well be a thousands separator (1,500): that is refused and the person asked for a dot.
 */
const DECIMAL_COMMA = /^-?\d+,(\d{1,2}|\d{4,})$/;

export const numberFromForm = (value: string): number | string => {
  const text = value.trim();
  if (DECIMAL_COMMA.test(text)) return Number(text.replace(',', '.'));
  return DECIMAL.test(text) ? Number(text) : value;
};
