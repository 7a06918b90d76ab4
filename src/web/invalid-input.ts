import type { Response } from 'express';
import type { z } from 'zod';

/** What is wrong with an input, one entry per field, worded for a person: "email must be an email address". */
export function describeInvalidFields(error: z.ZodError): { fields: string[]; message: string } {
  const fields = [...new Set(error.issues.map((issue) => issue.path.join('.') || 'body'))];
  const message = error.issues.map((issue) => `${issue.path.join('.') || 'body'} ${issue.message}`).join('; ');
  return { fields, message };
}

/** 400 naming the fields; nothing was written. */
export function sendInvalidInput(res: Response, error: z.ZodError): void {
  res.status(400).json({ error: 'invalid_request', ...describeInvalidFields(error) });
}
