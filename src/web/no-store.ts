import type { RequestHandler } from 'express';

/**
 * For answers that depend on who is signed in: no browser or shared cache may keep a copy
 * (RFC 9111 §5.2.2.5), so none is shown to the next person on the machine or behind the proxy.
 */
export const noStore: RequestHandler = (_req, res, next) => {
  res.set('Cache-Control', 'no-store');
  next();
};
