import type { Response } from 'express';
import type { z } from 'zod';

/** What is wrong with an input, worded for a person: "email must be an email address". */
export interface InvalidFields {
  fields: string[];
  message: string;
}

/** One entry per field of a schema's refusal. */
export function describeInvalidFields(error: z.ZodError): InvalidFields {
  const problems = error.issues.flatMap((issue) =>
    // An unknown field is named itself, not the object that holds it.
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ field: [...issue.path, key].join('.'), message: 'is not a known field' }))
      : [{ field: issue.path.join('.') || 'body', message: issue.message }],
  );
  return {
    fields: [...new Set(problems.map((problem) => problem.field))],
    message: problems.map((problem) => `${problem.field} ${problem.message}`).join('; '),
  };
}

/** A field the domain refused after the schema took it, e.g. a time outside the supported dates. */
export function describeInvalidField(field: string, message: string): InvalidFields {
  return { fields: [field], message: `${field} ${message}` };
}

/** 400 naming the fields; nothing was written. */
export function sendInvalidInput(res: Response, error: z.ZodError | InvalidFields): void {
  const invalid = 'issues' in error ? describeInvalidFields(error) : error;
  res.status(400).json({ error: 'invalid_request', ...invalid });
}
