import { Router } from 'express';
import type { Kind } from '../kinds/kind.js';
import { byDate } from '../kinds/entry-presentations.js';
import { calendarDateSchema } from '../dates/supported-dates.js';
import { createHistoryHint } from '../sync/hint.js';
import { parseJsonBody, requireJsonBody } from '../web/request-guards.js';
import { mealsExport } from './meal.export.js';
import { MEAL_AMOUNT_FIELDS } from './meal.fields.js';
import { batchBodyLimitBytes } from './meal.schemas.js';
import { mealsApi } from './meals.api.js';
import { createMeals } from './meals.js';
import { mealsPages } from './meals.pages.js';
import { nutritionSender } from './nutrition-sender.js';
import { mealSettings } from './nutrition.settings.js';
import { nutritionWorkload } from './nutrition.workload.js';
import { weekSummary } from './week-summary.js';

/** Nutrition: a person's meals, kept in the service one day at a time (§4.6). */
export const nutrition: Kind = {
  name: 'nutrition',
  title: 'Nutrition',
  label: 'Nutrition: daily meals and their items',
  scope: 'nutrition:write',
  page: { path: '/meals', navLabel: 'Meals' },
  stylesheet: 'nutrition/nutrition.css',
  settings: [mealSettings],
  web({ config, db, logger, syncQueues, renderPage, clock }) {
    const limits = config.kindSettings.of(mealSettings).meals;
    const meals = createMeals({ db, limits, clock, historyAdded: createHistoryHint(syncQueues, logger) });
    return {
      // An import carries up to MEALS_BATCH_MAX items, more than the 100 kB of any other request.
      ownBodies: Router().use('/api/meals/batch', requireJsonBody, parseJsonBody(batchBodyLimitBytes(limits))),
      api: mealsApi({ meals, limits }),
      pages: mealsPages({ db, meals, limits, renderPage, clock }),
    };
  },
  account: {
    exportOf: mealsExport,
    async eraseOf(trx, userId) {
      await trx.deleteFrom('meal_items').where('user_id', '=', userId).execute();
    },
  },
  fieldSets: [MEAL_AMOUNT_FIELDS],
  workload: nutritionWorkload,
  dashboard: weekSummary,
  sync: {
    inWords: 'meals',
    subject: calendarDateSchema,
    daily: true,
    sender: ({ db, api }) => nutritionSender({ db, api }),
    // A day of meals has a page of its own.
    overview: { labeller: byDate, href: (entry) => `/meals?date=${entry.subject}` },
  },
};
