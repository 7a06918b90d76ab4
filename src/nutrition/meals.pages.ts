import { Router, type Request, type Response } from 'express';
import { DateTime } from 'luxon';
import type { DateStyle } from '../dates/date-style.js';
import { latestRecordableDate } from '../dates/latest-date.js';
import { addDays, localTimeOfDay, localToday } from '../dates/local-today.js';
import { calendarDateSchema, isSupportedDate } from '../dates/supported-dates.js';
import type { Db } from '../db/database.js';
import { formColumnsOf, formValuesOf, formWordsOf, parseFormInput } from '../fields/field-form.js';
import { syncStatusesOf } from '../sync/sync-statuses.js';
import { syncDescriberFor } from '../sync/sync-describer.js';
import { currentUser, requireUserPage } from '../web/authentication.js';
import { renderConfirmation } from '../web/confirm-page.js';
import { redirectIfDeleted, rememberDeleted } from '../web/deleted-items.js';
import { flash } from '../web/flash.js';
import { refuseForm, takeDraft } from '../web/form-draft.js';
import { formProblemsOf, type FormProblems, type FormWords } from '../web/form-problems.js';
import type { RenderPage } from '../web/pages.js';
import { dateStyleOf } from '../web/locale.js';
import { dateFromQuery, renderBadDate } from '../web/query-date.js';
import { dayTotals, itemAmountsLine } from './day-totals.js';
import { describeLoggedAt } from './local-date.js';
import { findMeal } from './meal.repository.js';
import { mealChangesFromForm, mealInputFromForm, readMealForm, type MealForm } from './meal-form.js';
import { MEAL_AMOUNTS } from './meal.fields.js';
import { mealIdSchema, mealInputSchemas, type MealLimits } from './meal.schemas.js';
import type { MealOutcome, Meals, MealView } from './meals.js';

interface Dependencies {
  db: Db;
  meals: Meals;
  limits: MealLimits;
  renderPage: RenderPage;
  clock: () => Date;
}

/** What the form calls an item's absorption type (section 2.4's `absorptionType`), in people's words. */
const ABSORPTION_LABEL = 'How fast the carbs act';

/** The form's fields by the names the schema gives them, for the plain words next to each. */
const MEAL_WORDS: FormWords = {
  fields: {
    logged_at: { label: 'Time', input: 'time', expected: 'must be a time of day, such as 08:30' },
    name: { label: 'Name', input: 'name' },
    carbs: { label: 'Carbs', input: 'carbs' },
    ...formWordsOf(MEAL_AMOUNTS, 'words'),
    absorptionType: { label: ABSORPTION_LABEL, input: 'absorptionType' },
  },
};

/** The amounts' fields on the form: each one field, by its name and label. */
const AMOUNT_FIELDS = formColumnsOf(MEAL_AMOUNTS).flatMap((column) => column.fields);

/**
 * A form the person sent that was refused: shown again as typed, in the item it was for (or the
 * add form), each refused field marked. Kept in the session for the day's page the POST redirects
 * to (form-draft.ts), so Back and reload never send it again.
 */
interface Draft {
  /** The item's id, 'new' for the add form, none when the item no longer exists. */
  target?: number | 'new';
  form: MealForm;
  problems: FormProblems;
}

/** A refused form is named by the path it posts to: `/meals` for a new item, `/meals/12` for item 12. */
const DRAFT_FORM = '/meals';

/** The form refused just before, kept for this page (form-draft.ts). */
function draftOf(req: Request): Draft | undefined {
  const draft = takeDraft(req, (form) => form === DRAFT_FORM || form.startsWith(`${DRAFT_FORM}/`));
  if (!draft) return undefined;
  const id = mealIdSchema.safeParse(draft.form.slice(DRAFT_FORM.length + 1));
  const target = draft.form === DRAFT_FORM ? 'new' : id.success ? id.data : undefined;
  return { target, form: readMealForm(draft.values), problems: draft.problems };
}

/** A day's meals as a page: list, add, edit, delete, move between days, and the day's sync status. */
export function mealsPages({ db, meals, limits, renderPage, clock }: Dependencies): Router {
  const router = Router();
  const schemas = mealInputSchemas(limits);
  router.use('/meals', requireUserPage);

  function today(res: Response): string {
    return localToday(clock(), currentUser(res).timezone);
  }

  async function renderDay(req: Request, res: Response, date: string) {
    const user = currentUser(res);
    const draft = draftOf(req);
    const [sync] = await syncStatusesOf(db, user.id, 'nutrition', [date]);
    const list = await meals.list(user, date);
    const draftFor = (target: number | 'new') => (draft?.target === target ? draft : undefined);
    const style = dateStyleOf(req);
    const dayLink = (day: string | undefined) => day && { date: day, label: style.day(day) };
    const latest = latestRecordableDate(clock(), user.timezone);
    renderPage(req, res, 'nutrition/meals', {
      title: `Meals on ${style.day(date)}`,
      date,
      previous: dayLink(supportedOrNone(addDays(date, -1))),
      next: dayLink(addDays(date, 1) <= latest ? addDays(date, 1) : undefined),
      // A day after the latest a meal may be of shows what it holds (logged before that rule), but takes no new item.
      tooLate: date > latest ? style.day(latest) : undefined,
      totals: dayTotals(list),
      items: list.map((meal) => itemOf(meal, user.timezone, style, draftFor(meal.id))),
      added: {
        values: draftFor('new')?.form ?? { ...readMealForm({}), time: localTimeOfDay(clock(), user.timezone) },
        problems: draftFor('new')?.problems.fields ?? {},
      },
      sync: sync && (await syncDescriberFor(db, user, clock()))(sync),
      absorptionLabel: ABSORPTION_LABEL,
      absorptionTypes: limits.absorptionTypes.map((type) => ({ value: type, words: typeInWords(type) })),
      amounts: AMOUNT_FIELDS,
      problem: draft && noticeOf(draft, list),
    });
  }

  /** Back to the day's page with the refused form as typed and every problem in plain words. */
  function refuse(req: Request, res: Response, date: string, form: MealForm, problems: FormProblems) {
    refuseForm(req, res, `/meals?date=${date}`, { form: req.path, values: form, problems });
  }

  function afterWrite(req: Request, res: Response, date: string, form: MealForm, outcome: MealOutcome, done: string) {
    if (outcome.ok) {
      flash(req, `${done} ${mealWords(outcome.meal, outcome.meal.date, dateStyleOf(req))}.`);
      return res.redirect(303, `/meals?date=${outcome.meal.date}`);
    }
    refuse(req, res, date, form, problemsOf(outcome, form));
  }

  function renderNotFound(req: Request, res: Response) {
    const page = { title: 'Not found', heading: 'No such meal item', message: 'It does not exist, or is not yours.' };
    renderPage(req, res, 'error', page, 404);
  }

  router.get('/meals', async (req, res) => {
    const date = dateFromQuery(req.query.date);
    if (!date.ok) return renderBadDate(renderPage, req, res, date.problem, { href: '/meals', text: 'Go to today' });
    await renderDay(req, res, date.date ?? today(res));
  });

  router.post('/meals', async (req, res) => {
    const form = readMealForm(req.body);
    const date = calendarDateSchema.safeParse(form.date).data ?? today(res);
    const input = parseFormInput(mealInputFromForm(form), schemas.create);
    if (!input.success) return refuse(req, res, date, form, formProblemsOf(input.error, MEAL_WORDS, form));
    afterWrite(req, res, date, form, await meals.add(currentUser(res), input.data), 'Added');
  });

  router.post('/meals/:id', async (req, res) => {
    const form = readMealForm(req.body);
    const date = calendarDateSchema.safeParse(form.date).data ?? today(res);
    const id = mealIdSchema.safeParse(req.params.id);
    if (!id.success) return refuse(req, res, date, form, problemsOf({ ok: false, reason: 'not_found' }, form));
    const changes = parseFormInput(mealChangesFromForm(form), schemas.update);
    if (!changes.success) return refuse(req, res, date, form, formProblemsOf(changes.error, MEAL_WORDS, form));
    afterWrite(req, res, date, form, await meals.change(currentUser(res), id.data, changes.data), 'Saved');
  });

  router.get('/meals/:id/delete', async (req, res) => {
    const id = mealIdSchema.safeParse(req.params.id);
    const meal = id.success ? await findMeal(db, currentUser(res).id, id.data) : undefined;
    if (!meal && redirectIfDeleted(req, res, `/meals/${req.params.id}`)) return;
    if (!meal) return renderNotFound(req, res);
    renderConfirmation(renderPage, req, res, {
      heading: `Delete ${mealWords(meal, meal.local_date, dateStyleOf(req))}?`,
      lines: ['The day is sent to the service again without it.'],
      action: `/meals/${meal.id}/delete`,
      fields: { date: meal.local_date },
      confirm: 'Delete',
      cancel: `/meals?date=${meal.local_date}`,
    });
  });

  router.post('/meals/:id/delete', async (req, res) => {
    const date = calendarDateSchema.safeParse(readMealForm(req.body).date).data ?? today(res);
    const id = mealIdSchema.safeParse(req.params.id);
    // Another user's item is "not found" too, as in the JSON API: its existence is not revealed.
    const removed = id.success ? await meals.remove(currentUser(res), id.data) : undefined;
    if (!removed?.ok) return renderNotFound(req, res);
    const named = mealWords(removed.meal, removed.meal.date, dateStyleOf(req));
    rememberDeleted(req, `/meals/${req.params.id}`, { page: `/meals?date=${date}`, said: `${named} was deleted.` });
    flash(req, `Deleted ${named}.`);
    res.redirect(303, `/meals?date=${date}`);
  });

  return router;
}

/** No link past the first or last supported date. */
function supportedOrNone(date: string): string | undefined {
  return isSupportedDate(date) ? date : undefined;
}

/**
 * An item's row: its values (as typed when its form was refused), its time as stored (so an
 * unchanged time keeps the item's own offset), and that time in words against the user's zone.
 */
function itemOf(meal: MealView, zone: string, style: DateStyle, draft: Draft | undefined) {
  const time = meal.logged_at.slice(11, 16);
  const stored = {
    time,
    name: meal.name,
    carbs: String(meal.carbs),
    ...formValuesOf(MEAL_AMOUNTS, meal),
    absorptionType: meal.absorptionType ?? '',
  };
  return {
    id: meal.id,
    name: meal.name,
    time: wallTime(meal.logged_at, style),
    amounts: itemAmountsLine(meal),
    editing: draft !== undefined,
    label: `${meal.name} at ${wallTime(meal.logged_at, style)}`,
    values: draft?.form ?? stored,
    originalTime: draft?.form.originalTime || time,
    problems: draft?.problems.fields ?? {},
    when: describeLoggedAt(meal.logged_at, zone, style),
    loggedAt: meal.logged_at,
  };
}

/** A configured absorption type as people say it: RAPID is "Rapid", VERY_SLOW "Very slow". */
function typeInWords(type: string): string {
  const words = type.toLowerCase().replaceAll('_', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The notice at the top: which form was refused, and every problem in plain words. */
function noticeOf(draft: Draft, list: MealView[]): string {
  const item = list.find((meal) => meal.id === draft.target);
  const what = draft.target === 'new' ? 'The new item was not added' : item ? `“${item.name}” was not saved` : 'Nothing was saved';
  return `${what}: ${draft.problems.all.join(' ')}`;
}

function problemsOf(outcome: Exclude<MealOutcome, { ok: true }>, form: MealForm): FormProblems {
  if (outcome.reason === 'invalid_field') return formProblemsOf(outcome, MEAL_WORDS, form);
  const said = outcome.reason === 'not_found' ? 'That item no longer exists.' : `${outcome.message}.`;
  return { fields: {}, all: [said] };
}

/** The time on the clock where the meal was logged, in the person's style. */
function wallTime(loggedAt: string, style: DateStyle): string {
  return style.time(DateTime.fromISO(loggedAt, { setZone: true }));
}

/** A meal item as a confirmation names it: "Porridge at 08:30 on Wed, 1 Jul 2026". */
function mealWords(meal: { name: string; logged_at: string }, date: string, style: DateStyle): string {
  return `${meal.name} at ${wallTime(meal.logged_at, style)} on ${style.day(date)}`;
}
