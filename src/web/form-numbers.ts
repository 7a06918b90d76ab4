/**
 * A form field's text as a JSON number when it is written as a decimal number, so one schema
 * validates both the JSON API and the form. Decimal numbers only: Number() would also take 0x10,
 * 0b101, 1e3 and Infinity. Anything else stays text, so the schema names the field.
 */
const DECIMAL = /^-?\d+(\.\d+)?$/;

export const numberFromForm = (value: string): number | string => (DECIMAL.test(value.trim()) ? Number(value) : value);
