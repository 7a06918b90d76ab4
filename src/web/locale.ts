import type { Request } from 'express';
import { dateStyleFor, type DateStyle } from '../dates/date-style.js';
import { pageLocaleFor } from '../dates/page-locales.js';

/**
 * The person's locale: the first of the app's locales that their browser's Accept-Language names,
 * in their order of preference (quality values, then the header's order); the app's own otherwise.
 */
export function localeOf(req: Request): string {
  return pageLocaleFor(req.acceptsLanguages());
}

/** How this request's page writes dates and times. */
export function dateStyleOf(req: Request): DateStyle {
  return dateStyleFor(localeOf(req));
}
