import type { Request } from 'express';

/**
 * Whether a request is answered in JSON rather than with a page: everything under /api/, and a
 * client that asks for JSON over HTML (a script posting to a page's address). The one place that
 * decides it, for refusals and errors alike.
 */
export function wantsJson(req: Request): boolean {
  return req.path.startsWith('/api/') || req.accepts(['html', 'json']) === 'json';
}
