import { Router, type Request, type Response } from 'express';
import { DateTime } from 'luxon';
import { latestRecordableDate } from '../dates/latest-date.js';
import { addDays, localToday } from '../dates/local-today.js';
import { calendarDateSchema, isSupportedDate } from '../dates/supported-dates.js';
import type { Db } from '../db/database.js';
import { formWordsOf, parseFormInput } from '../fields/field-form.js';
import type { SyncFacts } from '../sync/sync-statuses.js';
import { syncDescriberFor } from '../sync/sync-describer.js';
import type { SyncWords } from '../sync/sync-words.js';
import { currentUser, requireUserPage } from '../web/authentication.js';
import { renderConfirmation } from '../web/confirm-page.js';
import { flash } from '../web/flash.js';
import { refuseForm, takeDraft } from '../web/form-draft.js';
import { formProblemsOf, type FormProblems, type FormWords, type Refusal } from '../web/form-problems.js';
import type { RenderPage } from '../web/pages.js';
import { dateStyleOf } from '../web/locale.js';
import { dateFromQuery, renderBadDate } from '../web/query-date.js';
import { FORM_COLUMNS, readWellnessForm, wellnessFormOf, wellnessInputFromForm, type WellnessForm } from './wellness-form.js';
import { firstChartDay, wellnessCharts } from './wellness-charts.js';
import { WELLNESS_MEASUREMENTS } from './wellness.fields.js';
import { wellnessInputSchema } from './wellness.schemas.js';
import type { Wellness, WellnessDayView } from './wellness.js';

/**
 * How many days a page shows. The newest page ends with tomorrow (a night's sleep is often
 * entered the morning after, and the service takes tomorrow) and holds the 14 days up to today
 * that the dashboard's overview links to; earlier pages are reached page by page.
 */
const DAYS_SHOWN = 15;

interface Dependencies {
  db: Db;
  wellness: Wellness;
  renderPage: RenderPage;
  clock: () => Date;
}

/** A form the person sent that was refused: shown again in its row as typed, the refused fields marked. */
interface Draft {
  date: string;
  form: WellnessForm;
  problems: FormProblems;
}

/** The row's fields by their labels, for the plain words of a refusal; a measurement refused as a whole is told next to its first field. */
const WELLNESS_WORDS: FormWords = {
  fields: {
    ...formWordsOf(WELLNESS_MEASUREMENTS, 'label'),
    date: { label: 'The date' },
  },
  whole: 'Enter at least one measurement.',
};

/** A refused row's form is named by the path it posts to: `/wellness/2026-11-23`. */
const DRAFT_FORM = '/wellness/';

/** The row refused just before, kept for this page (form-draft.ts). */
function draftOf(req: Request): Draft | undefined {
  const draft = takeDraft(req, (form) => form.startsWith(DRAFT_FORM));
  const date = calendarDateSchema.safeParse(draft?.form.slice(DRAFT_FORM.length));
  return draft && date.success ? { date: date.data, form: readWellnessForm(draft.values), problems: draft.problems } : undefined;
}

/** Wellness days as a table, page by page, each row a form: record, change or delete a day, and see its sync status. */
export function wellnessPages({ db, wellness, renderPage, clock }: Dependencies): Router {
  const router = Router();
  router.use('/wellness', requireUserPage);

  function tomorrow(res: Response): string {
    return latestRecordableDate(clock(), currentUser(res).timezone);
  }

  async function renderDays(req: Request, res: Response, last: string) {
    const user = currentUser(res);
    const draft = draftOf(req);
    const dates = Array.from({ length: DAYS_SHOWN }, (_, index) => addDays(last, -index)).filter(isSupportedDate);
    const recorded = new Map((await wellness.days(user, dates.at(-1)!, last)).map((day) => [day.date, day]));
    const now = clock();
    const style = dateStyleOf(req);
    const syncWords = await syncDescriberFor(db, user, now);
    const today = localToday(now, user.timezone);
    const charted = await wellness.records(user, firstChartDay(today), today);
    renderPage(req, res, 'wellness/wellness', {
      title: 'Wellness',
      columns: FORM_COLUMNS,
      charts: wellnessCharts(charted, today, style),
      range: `${style.day(dates.at(-1)!)} to ${style.day(last)}`,
      earlier: earlierPage(last),
      later: laterPage(last, tomorrow(res)),
      rows: dates.map((date) => rowOf(date, style.day(date), recorded.get(date), draft?.date === date ? draft : undefined, syncWords)),
      problem: draft && `${style.day(draft.date)} was not saved: ${draft.problems.all.join(' ')}`,
    });
  }

  router.get('/wellness', async (req, res) => {
    const toLatest = { href: '/wellness', text: 'Show the latest days' };
    const last = dateFromQuery(req.query.date);
    if (!last.ok) return renderBadDate(renderPage, req, res, last.problem, toLatest);
    if (last.date !== undefined && last.date > tomorrow(res)) {
      return renderBadDate(
        renderPage,
        req,
        res,
        `The address asks for ${last.date}; the latest day with wellness is tomorrow, ${tomorrow(res)}.`,
        toLatest,
      );
    }
    await renderDays(req, res, last.date ?? tomorrow(res));
  });

  router.post('/wellness/:date', async (req, res) => {
    const form = readWellnessForm(req.body);
    const date = calendarDateSchema.safeParse(req.params.date);
    if (!date.success) return renderNotFound(req, res);
    const refuse = (refusal: Refusal) =>
      refuseForm(req, res, pageHolding(date.data, tomorrow(res)), {
        form: `${DRAFT_FORM}${date.data}`,
        values: form,
        problems: formProblemsOf(refusal, WELLNESS_WORDS, form),
      });
    const input = parseFormInput(wellnessInputFromForm(form), wellnessInputSchema);
    if (!input.success) return refuse(input.error);
    const outcome = await wellness.put(currentUser(res), date.data, input.data);
    if (!outcome.ok) return refuse(outcome);
    flash(req, `Saved wellness for ${dateStyleOf(req).day(date.data)}.`);
    res.redirect(303, pageHolding(date.data, tomorrow(res)));
  });

  router.get('/wellness/:date/delete', async (req, res) => {
    const date = calendarDateSchema.safeParse(req.params.date);
    if (!date.success) return renderNotFound(req, res);
    // Back to this page after the delete, or a day never recorded: the day's page says there is nothing to delete.
    if ((await wellness.days(currentUser(res), date.data, date.data)).length === 0) {
      flash(req, `Nothing is recorded for ${dateStyleOf(req).day(date.data)}, so there is nothing to delete.`);
      return res.redirect(303, pageHolding(date.data, tomorrow(res)));
    }
    renderConfirmation(renderPage, req, res, {
      heading: `Delete your wellness of ${dateStyleOf(req).day(date.data)}?`,
      lines: [
        'It is deleted here and no longer synced. The Athlete Data Service offers no delete: it keeps what it was last sent for that day, if anything.',
      ],
      action: `/wellness/${date.data}/delete`,
      confirm: 'Delete',
      cancel: pageHolding(date.data, tomorrow(res)),
    });
  });

  router.post('/wellness/:date/delete', async (req, res) => {
    const date = calendarDateSchema.safeParse(req.params.date);
    if (!date.success) return renderNotFound(req, res);
    const removal = await wellness.remove(currentUser(res), date.data);
    if (!removal.deleted) return renderNotFound(req, res);
    const kept = removal.sentBefore ? 'The service keeps what it was last sent for that day.' : 'It had not been sent to the service.';
    flash(req, `Deleted ${dateStyleOf(req).day(date.data)} here. ${kept}`);
    res.redirect(303, pageHolding(date.data, tomorrow(res)));
  });

  function renderNotFound(req: Request, res: Response) {
    const page = { title: 'Not found', heading: 'No such wellness day', message: 'There is no record for that date.' };
    renderPage(req, res, 'error', page, 404);
  }

  return router;
}

/** The last day of the page that holds `date`: pages are counted back from the newest, so each day is on one page. */
function pageEndingWith(date: string, newest: string): string {
  const pagesBack = Math.floor(
    DateTime.fromISO(newest, { zone: 'utc' }).diff(DateTime.fromISO(date, { zone: 'utc' }), 'days').days / DAYS_SHOWN,
  );
  return addDays(newest, -Math.max(0, pagesBack) * DAYS_SHOWN);
}

function pageAddress(last: string, newest: string): string {
  return last === newest ? '/wellness' : `/wellness?date=${last}`;
}

/** The address of the page that shows `date`. */
function pageHolding(date: string, newest: string): string {
  return pageAddress(pageEndingWith(date, newest), newest);
}

function earlierPage(last: string): string | undefined {
  const earlier = addDays(last, -DAYS_SHOWN);
  return isSupportedDate(earlier) ? `/wellness?date=${earlier}` : undefined;
}

/** The page after this one: the newest page at most, so the pages stay where they were. */
function laterPage(last: string, newest: string): string | undefined {
  return last >= newest ? undefined : pageHolding(addDays(last, DAYS_SHOWN), newest);
}

/** One row of the table: its date as the person reads it, the values to show (as typed when refused), whether there is a record, and its sync status. */
function rowOf(
  date: string,
  written: string,
  day: WellnessDayView | undefined,
  draft: Draft | undefined,
  syncWords: (sync: SyncFacts) => SyncWords,
) {
  return {
    date,
    day: written,
    values: draft?.form ?? wellnessFormOf(day),
    invalid: Object.keys(draft?.problems.fields ?? {}),
    recorded: day !== undefined,
    sync: day?.sync && syncWords(day.sync),
  };
}
