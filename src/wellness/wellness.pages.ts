import { Router, type Request, type Response } from 'express';
import { addDays, localToday } from '../dates/local-today.js';
import { calendarDateSchema } from '../dates/supported-dates.js';
import type { SyncFacts } from '../sync/outbox.js';
import { describeSync, type SyncWords } from '../sync/sync-words.js';
import { currentUser, requireUserPage } from '../web/authentication.js';
import { renderConfirmation } from '../web/confirm-page.js';
import { flash } from '../web/flash.js';
import { formProblemsOf, type FormProblems, type FormWords, type Refusal } from '../web/form-problems.js';
import type { RenderPage } from '../web/pages.js';
import { dateFromQuery, renderBadDate } from '../web/query-date.js';
import { readWellnessForm, wellnessInputFromForm, type WellnessForm } from './wellness-form.js';
import { MEASUREMENT_NAMES, MEASUREMENTS, wellnessInputSchema } from './wellness.schemas.js';
import type { Wellness, WellnessDayView } from './wellness.js';

/** How many days the page shows, ending with the user's today. */
const DAYS_SHOWN = 14;

interface Dependencies {
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

/** The row's fields by their labels, for the plain words of a refusal. */
const WELLNESS_WORDS: FormWords = {
  fields: {
    ...Object.fromEntries(MEASUREMENT_NAMES.map((name) => [name, { label: MEASUREMENTS[name].label, input: name }])),
    date: { label: 'The date' },
  },
  whole: 'Enter at least one measurement.',
};

/** The last 14 days as a table, each row a form: record, change or delete a day, and see its sync status. */
export function wellnessPages({ wellness, renderPage, clock }: Dependencies): Router {
  const router = Router();
  router.use('/wellness', requireUserPage);

  async function renderDays(req: Request, res: Response, options: { draft?: Draft; deleted?: DeletedDay } = {}) {
    const user = currentUser(res);
    const today = localToday(clock(), user.timezone);
    const from = addDays(today, 1 - DAYS_SHOWN);
    const recorded = new Map((await wellness.days(user, from, today)).map((day) => [day.date, day]));
    const dates = Array.from({ length: DAYS_SHOWN }, (_, index) => addDays(today, -index));
    const { draft, deleted } = options;
    const now = clock();
    const syncWords = (sync: SyncFacts) => describeSync(sync, user.timezone, now);
    renderPage(
      req,
      res,
      'wellness',
      {
        title: 'Wellness',
        measurements: MEASUREMENT_NAMES.map((name) => ({ name, label: MEASUREMENTS[name].label })),
        rows: dates.map((date) => rowOf(date, recorded.get(date), draft?.date === date ? draft : undefined, deleted?.date === date ? deleted : undefined, syncWords)),
        problem: draft && `${draft.date} was not saved: ${draft.problems.all.join(' ')}`,
        deleted,
      },
      draft ? 400 : 200,
    );
  }

  router.get('/wellness', async (req, res) => {
    const deleted = dateFromQuery(req.query.deleted);
    if (!deleted.ok) return renderBadDate(renderPage, req, res, deleted.problem, { href: '/wellness', text: 'Show the last 14 days' });
    await renderDays(req, res, { deleted: deleted.date === undefined ? undefined : { date: deleted.date, sentBefore: req.query.sent === '1' } });
  });

  router.post('/wellness/:date', async (req, res) => {
    const form = readWellnessForm(req.body);
    const date = calendarDateSchema.safeParse(req.params.date);
    if (!date.success) return renderNotFound(req, res);
    const input = wellnessInputSchema.safeParse(wellnessInputFromForm(form));
    const refuse = (refusal: Refusal) =>
      renderDays(req, res, { draft: { date: date.data, form, problems: formProblemsOf(refusal, WELLNESS_WORDS, form) } });
    if (!input.success) return refuse(input.error);
    const outcome = await wellness.put(currentUser(res), date.data, input.data);
    if (!outcome.ok) return refuse(outcome);
    flash(req, `Saved wellness for ${date.data}.`);
    res.redirect(303, '/wellness');
  });

  router.get('/wellness/:date/delete', async (req, res) => {
    const date = calendarDateSchema.safeParse(req.params.date);
    const recorded = date.success && (await wellness.days(currentUser(res), date.data, date.data)).length > 0;
    if (!date.success || !recorded) return renderNotFound(req, res);
    renderConfirmation(renderPage, req, res, {
      heading: `Delete your wellness of ${date.data}?`,
      lines: ['It is deleted here and no longer synced. The Athlete Data Service offers no delete: it keeps what it was last sent for that day, if anything.'],
      action: `/wellness/${date.data}/delete`,
      confirm: 'Delete',
      cancel: '/wellness',
    });
  });

  router.post('/wellness/:date/delete', async (req, res) => {
    const date = calendarDateSchema.safeParse(req.params.date);
    if (!date.success) return renderNotFound(req, res);
    const removal = await wellness.remove(currentUser(res), date.data);
    if (!removal.deleted) return renderNotFound(req, res);
    res.redirect(303, `/wellness?deleted=${date.data}${removal.sentBefore ? '&sent=1' : ''}`);
  });

  function renderNotFound(req: Request, res: Response) {
    const page = { title: 'Not found', heading: 'No such wellness day', message: 'There is no record for that date.' };
    renderPage(req, res, 'error', page, 404);
  }

  return router;
}

/** A day just deleted here, and whether the service keeps a version of it. */
interface DeletedDay {
  date: string;
  sentBefore: boolean;
}

/** One row of the table: the values to show (as typed when refused), whether there is a record, and its sync status. */
function rowOf(
  date: string,
  day: WellnessDayView | undefined,
  draft: Draft | undefined,
  deletedHere: DeletedDay | undefined,
  syncWords: (sync: SyncFacts) => SyncWords,
) {
  const stored = (name: (typeof MEASUREMENT_NAMES)[number]) => (day?.[name] === undefined ? '' : String(day[name]));
  return {
    date,
    values: Object.fromEntries(MEASUREMENT_NAMES.map((name) => [name, draft ? draft.form[name] : stored(name)])),
    invalid: Object.keys(draft?.problems.fields ?? {}),
    recorded: day !== undefined,
    sync: day?.sync && syncWords(day.sync),
    deletedHere,
  };
}
