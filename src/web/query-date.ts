import type { Request, Response } from 'express';
import { DateTime } from 'luxon';
import { SUPPORTED_DATES, calendarDateSchema } from '../dates/supported-dates.js';
import type { RenderPage } from './pages.js';

/** A page's `?date=` (or another date parameter): absent, a date, or a problem in plain words. */
export type QueryDate = { ok: true; date?: string } | { ok: false; problem: string };

export function dateFromQuery(value: unknown): QueryDate {
  if (value === undefined) return { ok: true };
  const date = calendarDateSchema.safeParse(value);
  if (date.success) return { ok: true, date: date.data };
  return { ok: false, problem: dateProblem(value) };
}

function dateProblem(value: unknown): string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    return `The address asks for the date “${String(value)}”, which is not a date. Dates are written like 2026-11-23.`;
  }
  if (!DateTime.fromISO(value).isValid) return `The address asks for ${value}, a day the calendar does not have.`;
  return `The address asks for ${value}; dates go from ${SUPPORTED_DATES.first} to ${SUPPORTED_DATES.last}.`;
}

/**
 * A friendly 400 for a date parameter that is not a date, rather than silently showing another
 * day: the person learns their link or bookmark is wrong, and gets one to a day that works.
 */
export function renderBadDate(renderPage: RenderPage, req: Request, res: Response, problem: string, link: { href: string; text: string }) {
  renderPage(req, res, 'error', { title: 'No such date', heading: 'No such date', message: problem, link }, 400);
}
