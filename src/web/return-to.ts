import type { Request } from 'express';
import { z } from 'zod';

/** Any origin will do: a path is resolved against it only to see whether it stays on it. */
const THIS_SITE = 'http://this-site.invalid';

/**
 * A page of this site to go back to after signing in: a path such as `/wellness?date=2026-11-20`.
 * Anything that could leave the site is refused (an open redirect, OWASP's Unvalidated Redirects
 * cheat sheet): `//evil.example` and `/\evil.example` (which browsers read as another host), a
 * full address, and control characters, which browsers drop from addresses.
 */
const sameSitePathSchema = z
  .string()
  .max(2048)
  .regex(/^\/(?![/\\])[^\p{Cc}]*$/u)
  .transform((path) => new URL(path, THIS_SITE))
  .refine((url) => url.origin === THIS_SITE)
  .transform((url) => `${url.pathname}${url.search}${url.hash}`);

export function sameSitePath(value: unknown): string | undefined {
  return sameSitePathSchema.safeParse(value).data;
}

/**
 * Where a signed-out person is sent: the sign-in page, naming the page they asked for so that
 * signing in leads back to it. Only a page they were viewing (GET): a form's POST cannot be replayed.
 */
export function signInAddressFor(req: Request): string {
  const requested = req.method === 'GET' || req.method === 'HEAD' ? sameSitePath(req.originalUrl) : undefined;
  return requested === undefined || requested === '/' ? '/login' : `/login?next=${encodeURIComponent(requested)}`;
}
