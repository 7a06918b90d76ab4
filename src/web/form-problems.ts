import type { z } from 'zod';
import { numberFromForm } from '../fields/form-numbers.js';

/**
 * What a page's form says when it is refused, in plain words for a person; the JSON API keeps the
 * schema's precise messages (invalid-input.ts). Each sentence belongs to the form field the person
 * typed into, so the page shows it next to that field.
 */

/** How a page names a schema field: its label, the form field it was typed into, and what a value should look like. */
export interface FieldWords {
  label: string;
  /** The form field's name; none when the field is not on the form (the page's date): its problem is the form's. */
  input?: string;
  /** Said instead of the schema's message when the value is not of the right kind ("must be a time of day, such as 08:30"). */
  expected?: string;
  /** Said instead of any of the schema's messages, for a field whose every refusal means one thing to a person (a time zone not in the list). */
  refused?: string;
}

export interface FormWords {
  fields: Record<string, FieldWords>;
  /** Said when the form as a whole was refused (e.g. nothing filled in). */
  whole?: string;
}

export interface FormProblems {
  /** By form field name: the sentence shown next to it. */
  fields: Record<string, string>;
  /** Every sentence, for the notice at the top. */
  all: string[];
}

/** A refusal of the schema, or of the domain for one field (`message` follows the field's name). */
export type Refusal = z.ZodError | { field: string; message: string };

/**
 * Every problem of a refused form at once, one per form field (the first the schema found: "Name
 * must not be empty", not also that it needs a visible character), each named by its label.
 */
export function formProblemsOf(refusal: Refusal, words: FormWords, typed: Record<string, string>): FormProblems {
  const problems =
    'issues' in refusal
      ? refusal.issues.map((issue) => ({ field: String(issue.path[0] ?? ''), sentence: plainIssue(issue, words, typed) }))
      : [{ field: refusal.field, sentence: sentence(words.fields[refusal.field]?.label ?? refusal.field, refusal.message) }];
  const fields: Record<string, string> = {};
  const all: string[] = [];
  const told = new Set<string>();
  for (const { field, sentence: said } of inFormOrder(problems, words)) {
    const input = words.fields[field]?.input;
    const place = input ?? field;
    if (told.has(place)) continue;
    told.add(place);
    if (input !== undefined) fields[input] = said;
    if (!all.includes(said)) all.push(said);
  }
  return { fields, all };
}

/**
 * The problems in the order of the fields they are shown next to (their order on the page), the
 * form's own first; a field's come in the order found, so what was refused as typed comes first.
 */
function inFormOrder<Problem extends { field: string }>(problems: Problem[], words: FormWords): Problem[] {
  const inputs = [...new Set(Object.values(words.fields).map((field) => field.input ?? ''))];
  const place = ({ field }: Problem) => {
    if (field === '') return -1;
    const input = words.fields[field]?.input;
    return input === undefined ? inputs.length : inputs.indexOf(input);
  };
  return problems.toSorted((one, other) => place(one) - place(other));
}

function plainIssue(issue: z.core.$ZodIssue, words: FormWords, typed: Record<string, string>): string {
  const field = words.fields[String(issue.path[0] ?? '')];
  if (!field) return issue.path.length === 0 && words.whole ? words.whole : sentence(issue.path.join('.'), issue.message);
  const value = field.input === undefined ? '' : (typed[field.input] ?? '');
  if (issue.code === 'invalid_type' && value.trim() === '') return `${field.label} must be filled in.`;
  if (issue.code === 'invalid_type' && value.includes(',') && typeof numberFromForm(value) === 'string') {
    return `${field.label}: use a dot for decimals: 12.5`;
  }
  if (field.refused !== undefined) return sentence(field.label, field.refused);
  if (issue.code === 'too_small' && Number(issue.minimum) === 0) return `${field.label} can't be negative.`;
  const wrongKind = issue.code === 'invalid_type' || issue.code === 'invalid_format';
  return sentence(field.label, wrongKind && field.expected ? field.expected : issue.message);
}

function sentence(label: string, message: string): string {
  const text = `${label} ${message}`;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}${/[.!?]$/.test(text) ? '' : '.'}`;
}
