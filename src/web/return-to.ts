import type { Request } from 'express';
import { z } from 'zod';

/** Any origin will do: a path is resolved against it only to see whether it stays on it. */
const THIS_SITE = 'http://this-site.invalid';

/**
 * A path as a browser reads it on this site: one slash, not followed by another slash or a
 * backslash (`//evil.example` and `/\\evil.example` name another host), and no control character
 * (browsers drop some from addresses, so `/\t/evil.example` is `//evil.example` to them).
 */
const OPENS_ON_THIS_SITE = /^\/(?![/\\])[^\p{Cc}]*$/u;

/** The path with its escapes undone, or '' when they are malformed: a decoding step anywhere must not make it leave. */
function unescaped(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return '';
  }
}

/**
 * A page of this site to go back to after signing in: a path such as `/wellness?date=2026-11-20`.
 * Anything that could leave the site is refused (an open redirect, OWASP's Unvalidated Redirects
 * cheat sheet): a full address, and whatever a browser could read as another host. The path is
 * normalised as browsers do (WHATWG URL: dot segments, backslashes as slashes), and checked before
 * and after, since normalising can make a new opening: `/.//evil.example` is `//evil.example`. Its
 * escapes undone (`/%2F%2Fevil.example`) must pass too.
 */
const sameSitePathSchema = z
  .string()
  .max(2048)
  .regex(OPENS_ON_THIS_SITE)
  .transform((path) => new URL(path, THIS_SITE))
  .refine((url) => url.origin === THIS_SITE && OPENS_ON_THIS_SITE.test(url.pathname) && OPENS_ON_THIS_SITE.test(unescaped(url.pathname)))
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
