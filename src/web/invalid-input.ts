import type { Response } from 'express';
import type { z } from 'zod';

/** What is wrong with an input, one entry per field, worded for a person: "email must be an email address". */
export function describeInvalidFields(error: z.ZodError): { fields: string[]; message: string } {
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

/** 400 naming the fields; nothing was written. */
export function sendInvalidInput(res: Response, error: z.ZodError): void {
  res.status(400).json({ error: 'invalid_request', ...describeInvalidFields(error) });
}
