import type { Request } from 'express';
import { DEFAULT_LOCALE, dateStyleFor, type DateStyle } from '../dates/date-style.js';

/**
 * The person's locale: the first language of their browser's Accept-Language (RFC 9110 §12.5.4,
 * in order of preference) that Intl can write dates in; the app's own otherwise.
 */
export function localeOf(req: Request): string {
  return req.acceptsLanguages().find(isUsableLocale) ?? DEFAULT_LOCALE;
}

function isUsableLocale(tag: string): boolean {
  try {
    return tag !== '*' && Intl.DateTimeFormat.supportedLocalesOf(tag).length > 0;
  } catch {
    return false; // not a language tag (RangeError)
  }
}

/** How this request's page writes dates and times. */
export function dateStyleOf(req: Request): DateStyle {
  return dateStyleFor(localeOf(req));
}
