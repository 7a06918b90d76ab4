import type { Request } from 'express';

/**
 * The fields of a posted form (express.urlencoded), still to be parsed; none when the request
 * carried no form. Express types the body `any`: it is read as unknown values from here on.
 */
export function formFields(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
}
