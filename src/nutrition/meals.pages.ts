import { Router, type Request, type Response } from 'express';
import { DateTime } from 'luxon';
import { localToday } from '../dates/local-today.js';
import { calendarDateSchema, isSupportedDate } from '../dates/supported-dates.js';
import type { Db } from '../db/database.js';
import { syncStatusesOf } from '../sync/outbox.js';
import { describeSync } from '../sync/sync-words.js';
import { currentUser, requireUserPage } from '../web/authentication.js';
import { describeInvalidField, describeInvalidFields } from '../web/invalid-input.js';
import type { RenderPage } from '../web/pages.js';
import { mealChangesFromForm, mealInputFromForm, readMealForm } from './meal-form.js';
import { mealIdSchema, mealInputSchemas, type MealLimits } from './meal.schemas.js';
import type { MealOutcome, Meals } from './meals.js';

interface Dependencies {
  db: Db;
  meals: Meals;
  limits: MealLimits;
  renderPage: RenderPage;
  clock: () => Date;
}

/** A day's meals as a page: list, add, edit, delete, move between days, and the day's sync status. */
export function mealsPages({ db, meals, limits, renderPage, clock }: Dependencies): Router {
  const router = Router();
  const schemas = mealInputSchemas(limits);
  router.use('/meals', requireUserPage);

  function today(res: Response): string {
    return localToday(clock(), currentUser(res).timezone);
  }

  async function renderDay(req: Request, res: Response, date: string, problem?: string) {
    const user = currentUser(res);
    const day = DateTime.fromISO(date);
    const [sync] = await syncStatusesOf(db, user.id, 'nutrition', [date]);
    renderPage(
      req,
      res,
      'meals',
      {
        title: `Meals on ${date}`,
        date,
        previous: supportedOrNone(day.minus({ days: 1 }).toISODate()!),
        next: supportedOrNone(day.plus({ days: 1 }).toISODate()!),
        meals: await meals.list(user, date),
        sync: sync && describeSync(sync, user.timezone, clock()),
        absorptionTypes: limits.absorptionTypes,
        problem,
      },
      problem ? 400 : 200,
    );
  }

  async function afterWrite(req: Request, res: Response, date: string, outcome: MealOutcome) {
    if (outcome.ok) return res.redirect(303, `/meals?date=${outcome.meal.date}`);
    await renderDay(req, res, date, problemOf(outcome));
  }

  function renderNotFound(req: Request, res: Response) {
    const page = { title: 'Not found', heading: 'No such meal item', message: 'It does not exist, or is not yours.' };
    renderPage(req, res, 'error', page, 404);
  }

  router.get('/meals', async (req, res) => {
    const date = calendarDateSchema.safeParse(req.query.date);
    await renderDay(req, res, date.success ? date.data : today(res));
  });

  router.post('/meals', async (req, res) => {
    const form = readMealForm(req.body);
    const date = calendarDateSchema.safeParse(form.date).data ?? today(res);
    const input = schemas.create.safeParse(mealInputFromForm(form));
    if (!input.success) return renderDay(req, res, date, describeInvalidFields(input.error).message);
    await afterWrite(req, res, date, await meals.add(currentUser(res), input.data));
  });

  router.post('/meals/:id', async (req, res) => {
    const form = readMealForm(req.body);
    const date = calendarDateSchema.safeParse(form.date).data ?? today(res);
    const id = mealIdSchema.safeParse(req.params.id);
    const changes = schemas.update.safeParse(mealChangesFromForm(form));
    if (!id.success) return renderDay(req, res, date, 'That item no longer exists.');
    if (!changes.success) return renderDay(req, res, date, describeInvalidFields(changes.error).message);
    await afterWrite(req, res, date, await meals.change(currentUser(res), id.data, changes.data));
  });

  router.post('/meals/:id/delete', async (req, res) => {
    const date = calendarDateSchema.safeParse(readMealForm(req.body).date).data ?? today(res);
    const id = mealIdSchema.safeParse(req.params.id);
    // Another user's item is "not found" too, as in the JSON API: its existence is not revealed.
    if (!id.success || !(await meals.remove(currentUser(res), id.data)).ok) return renderNotFound(req, res);
    res.redirect(303, `/meals?date=${date}`);
  });

  return router;
}

/** No link past the first or last supported date. */
function supportedOrNone(date: string): string | undefined {
  return isSupportedDate(date) ? date : undefined;
}

function problemOf(outcome: Exclude<MealOutcome, { ok: true }>): string {
  if (outcome.reason === 'not_found') return 'That item no longer exists.';
  if (outcome.reason === 'invalid_field') return describeInvalidField(outcome.field, outcome.message).message;
  return outcome.message;
}
