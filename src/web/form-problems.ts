import type { z } from 'zod';
import { numberFromForm } from './form-numbers.js';

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

export function formProblemsOf(refusal: Refusal, words: FormWords, typed: Record<string, string>): FormProblems {
  const problems =
    'issues' in refusal
      ? refusal.issues.map((issue) => ({ field: String(issue.path[0] ?? ''), sentence: plainIssue(issue, words, typed) }))
      : [{ field: refusal.field, sentence: sentence(words.fields[refusal.field]?.label ?? refusal.field, refusal.message) }];
  const fields: Record<string, string> = {};
  for (const { field, sentence: said } of problems) {
    const input = words.fields[field]?.input;
    if (input !== undefined) fields[input] ??= said;
  }
  return { fields, all: [...new Set(problems.map((problem) => problem.sentence))] };
}

function plainIssue(issue: z.core.$ZodIssue, words: FormWords, typed: Record<string, string>): string {
  const field = words.fields[String(issue.path[0] ?? '')];
  if (!field) return issue.path.length === 0 && words.whole ? words.whole : sentence(issue.path.join('.'), issue.message);
  const value = field.input === undefined ? '' : (typed[field.input] ?? '');
  if (issue.code === 'invalid_type' && value.trim() === '') return `${field.label}: please fill this in.`;
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
