import { Router, type Response } from 'express';
import { z } from 'zod';
import { dateRangeSchema } from '../dates/date-range.js';
import { calendarDateSchema } from '../dates/supported-dates.js';
import { currentUser, requireUserApi } from '../web/authentication.js';
import { describeInvalidField, sendInvalidInput } from '../web/invalid-input.js';
import { wellnessInputSchema } from './wellness.schemas.js';
import type { Wellness } from './wellness.js';

const dateParamSchema = z.object({ date: calendarDateSchema });

/** The wellness JSON API: a user only ever sees and touches their own days. */
export function wellnessApi({ wellness }: { wellness: Wellness }): Router {
  const router = Router();
  router.use('/api/wellness', requireUserApi);

  router.get('/api/wellness', async (req, res) => {
    const range = dateRangeSchema.safeParse(req.query);
    if (!range.success) return sendInvalidInput(res, range.error);
    const { from, to } = range.data;
    res.json({ from, to, days: await wellness.days(currentUser(res), from, to) });
  });

  router.put('/api/wellness/:date', async (req, res) => {
    const params = dateParamSchema.safeParse(req.params);
    if (!params.success) return sendInvalidInput(res, params.error);
    const input = wellnessInputSchema.safeParse(req.body ?? {});
    if (!input.success) return sendInvalidInput(res, input.error);
    const outcome = await wellness.put(currentUser(res), params.data.date, input.data);
    if (!outcome.ok) return sendInvalidInput(res, describeInvalidField(outcome.field, outcome.message));
    res.json(outcome.day);
  });

  router.delete('/api/wellness/:date', async (req, res) => {
    const params = dateParamSchema.safeParse(req.params);
    if (!params.success) return sendInvalidInput(res, params.error);
    if (!(await wellness.remove(currentUser(res), params.data.date)).deleted) return sendNotFound(res);
    res.status(204).end();
  });

  return router;
}

function sendNotFound(res: Response) {
  res.status(404).json({ error: 'not_found', message: 'No wellness record for that date.' });
}
