import type { z } from 'zod';
import { invalidRequest } from './api-error.js';

/** Parses a request body, or fails with 400 naming every bad field, e.g. `items.0.logged_at`. */
export function parseBody<Schema extends z.ZodType>(schema: Schema, body: unknown): z.output<Schema> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => ({ fields: fieldsOf(issue), message: issue.message }));
  const fields = [...new Set(problems.flatMap((problem) => problem.fields))];
  const description = problems.map((problem) => `${problem.fields.join(', ')}: ${problem.message}`).join('; ');
  throw invalidRequest(description, fields);
}

/** Dotted paths; an unknown key is named itself rather than by the object holding it. */
function fieldsOf(issue: z.core.$ZodIssue): string[] {
  const paths = issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path, key]) : [issue.path];
  return paths.map((path) => (path.length === 0 ? 'body' : path.map(String).join('.')));
}
