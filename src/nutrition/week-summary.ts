import { addDays, localToday } from '../dates/local-today.js';
import type { KindDashboardPart } from '../kinds/kind.js';
import { dayChart } from '../charts/day-chart.js';
import { amountWords } from './day-totals.js';
import { kcalOfDays } from './meal.repository.js';

/** The days of the dashboard's energy: the week ending today. */
const WEEK_DAYS = 7;

/** Nutrition on the dashboard: the energy of the person's last seven days, day by day, and in all. */
export const weekSummary: KindDashboardPart = {
  view: 'nutrition/week-summary',
  async load({ db, user, now, style }) {
    const today = localToday(now, user.timezone);
    const from = addDays(today, 1 - WEEK_DAYS);
    const kcal = await kcalOfDays(db, user.id, from, today);
    const total = [...kcal.values()].reduce((sum, value) => sum + value, 0);
    return {
      total: amountWords(total, 'kcal'),
      average: kcal.size > 0 ? amountWords(total / kcal.size, 'kcal') : undefined,
      daysLogged: kcal.size,
      chart: dayChart({
        from,
        to: today,
        values: kcal,
        shape: 'bars',
        title: 'Calories',
        valueWords: (value) => amountWords(value, 'kcal'),
        dayWords: (date) => style.day(date),
      }),
    };
  },
};
