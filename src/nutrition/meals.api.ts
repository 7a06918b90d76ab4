import { Router, type Response } from 'express';
import { z } from 'zod';
import { calendarDateSchema } from '../dates/supported-dates.js';
import { currentUser, requireUserApi } from '../web/authentication.js';
import { describeInvalidField, sendInvalidInput } from '../web/invalid-input.js';
import { mealIdSchema, mealInputSchemas, type MealLimits } from './meal.schemas.js';
import type { MealOutcome, Meals } from './meals.js';

const listQuerySchema = z.object({ date: calendarDateSchema });

/** The meals JSON API: a user only ever sees and touches their own items. */
export function mealsApi({ meals, limits }: { meals: Meals; limits: MealLimits }): Router {
  const router = Router();
  const schemas = mealInputSchemas(limits);
  router.use('/api/meals', requireUserApi);

  function sendOutcome(res: Response, outcome: MealOutcome, successStatus: 200 | 201) {
    if (outcome.ok) return res.status(successStatus).json(outcome.meal);
    if (outcome.reason === 'not_found') return sendNotFound(res);
    if (outcome.reason === 'invalid_field') return sendInvalidInput(res, describeInvalidField(outcome.field, outcome.message));
    sendDayFull(res, outcome);
  }

  router.get('/api/meals', async (req, res) => {
    const query = listQuerySchema.safeParse(req.query);
    if (!query.success) return sendInvalidInput(res, query.error);
    res.json({ date: query.data.date, meals: await meals.list(currentUser(res), query.data.date) });
  });

  router.post('/api/meals', async (req, res) => {
    const input = schemas.create.safeParse(req.body ?? {});
    if (!input.success) return sendInvalidInput(res, input.error);
    sendOutcome(res, await meals.add(currentUser(res), input.data), 201);
  });

  router.post('/api/meals/batch', async (req, res) => {
    const input = schemas.batch.safeParse(req.body ?? {});
    if (!input.success) return sendInvalidInput(res, input.error);
    const outcome = await meals.importMany(currentUser(res), input.data.items);
    if (outcome.ok) return res.status(201).json({ items: outcome.meals, days: outcome.days });
    if (outcome.reason === 'invalid_field') {
      return sendInvalidInput(res, describeInvalidField(`items.${outcome.index}.${outcome.field}`, outcome.message));
    }
    sendDayFull(res, outcome);
  });

  router.patch('/api/meals/:id', async (req, res) => {
    const id = mealIdSchema.safeParse(req.params.id);
    if (!id.success) return sendNotFound(res);
    const changes = schemas.update.safeParse(req.body ?? {});
    if (!changes.success) return sendInvalidInput(res, changes.error);
    sendOutcome(res, await meals.change(currentUser(res), id.data, changes.data), 200);
  });

  router.delete('/api/meals/:id', async (req, res) => {
    const id = mealIdSchema.safeParse(req.params.id);
    if (!id.success) return sendNotFound(res);
    const outcome = await meals.remove(currentUser(res), id.data);
    if (!outcome.ok) return sendNotFound(res);
    res.status(204).end();
  });

  return router;
}

function sendDayFull(res: Response, { message }: { message: string }) {
  res.status(409).json({ error: 'day_full', message });
}

/** Another user's item is "not found" too: its existence is not revealed. */
function sendNotFound(res: Response) {
  res.status(404).json({ error: 'not_found', message: 'No such meal item.' });
}
