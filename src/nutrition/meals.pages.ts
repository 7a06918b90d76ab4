import { Router, type Request, type Response } from 'express';
import { DateTime } from 'luxon';
import type { Db } from '../db/database.js';
import { syncStatuses } from '../sync/outbox.js';
import { currentUser, requireUserPage } from '../web/authentication.js';
import { describeInvalidFields } from '../web/invalid-input.js';
import type { RenderPage } from '../web/pages.js';
import { mealChangesFromForm, mealInputFromForm, readMealForm } from './meal-form.js';
import { dateParamSchema, mealIdSchema, mealInputSchemas, type MealLimits } from './meal.schemas.js';
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
    return DateTime.fromJSDate(clock()).setZone(currentUser(res).timezone).toISODate()!;
  }

  async function renderDay(req: Request, res: Response, date: string, problem?: string) {
    const user = currentUser(res);
    const day = DateTime.fromISO(date);
    const [sync] = (await syncStatuses(db, user.id, date, date)).filter((status) => status.kind === 'nutrition');
    renderPage(
      req,
      res,
      'meals',
      {
        title: `Meals on ${date}`,
        date,
        previous: day.minus({ days: 1 }).toISODate(),
        next: day.plus({ days: 1 }).toISODate(),
        meals: await meals.list(user, date),
        sync,
        absorptionTypes: limits.absorptionTypes,
        problem,
      },
      problem ? 400 : 200,
    );
  }

  async function afterWrite(req: Request, res: Response, date: string, outcome: MealOutcome) {
    if (outcome.ok) return res.redirect(303, `/meals?date=${outcome.meal.date}`);
    await renderDay(req, res, date, outcome.reason === 'not_found' ? 'That item no longer exists.' : outcome.message);
  }

  router.get('/meals', async (req, res) => {
    const date = dateParamSchema.safeParse(req.query.date);
    await renderDay(req, res, date.success ? date.data : today(res));
  });

  router.post('/meals', async (req, res) => {
    const form = readMealForm(req.body);
    const date = dateParamSchema.safeParse(form.date).data ?? today(res);
    const input = schemas.create.safeParse(mealInputFromForm(form));
    if (!input.success) return renderDay(req, res, date, describeInvalidFields(input.error).message);
    await afterWrite(req, res, date, await meals.add(currentUser(res), input.data));
  });

  router.post('/meals/:id', async (req, res) => {
    const form = readMealForm(req.body);
    const date = dateParamSchema.safeParse(form.date).data ?? today(res);
    const id = mealIdSchema.safeParse(req.params.id);
    const changes = schemas.update.safeParse(mealChangesFromForm(form));
    if (!id.success) return renderDay(req, res, date, 'That item no longer exists.');
    if (!changes.success) return renderDay(req, res, date, describeInvalidFields(changes.error).message);
    await afterWrite(req, res, date, await meals.change(currentUser(res), id.data, changes.data));
  });

  router.post('/meals/:id/delete', async (req, res) => {
    const date = dateParamSchema.safeParse(readMealForm(req.body).date).data ?? today(res);
    const id = mealIdSchema.safeParse(req.params.id);
    if (id.success) await meals.remove(currentUser(res), id.data);
    res.redirect(303, `/meals?date=${date}`);
  });

  return router;
}
