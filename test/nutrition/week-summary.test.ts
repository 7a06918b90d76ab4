import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../src/dates/local-today.js';
import { signUpNewUser } from '../helpers/flows.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { addMeal } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const ZONE = 'America/St_Johns';

describe('the week’s energy on the dashboard', () => {
  it('sums the calories of the last 7 local days, day by day, and leaves out an older day', async () => {
    const client = stack.browser();
    await signUpNewUser(client, ZONE);
    const today = DateTime.now().setZone(ZONE).toISODate()!;
    await addMeal(client, { name: 'Porridge', carbs: 45, kcal: 320, logged_at: `${today}T08:00:00` });
    await addMeal(client, { name: 'Pasta', carbs: 90, kcal: 700.5, logged_at: `${today}T19:00:00` });
    await addMeal(client, { name: 'Rice', carbs: 60, logged_at: `${addDays(today, -6)}T12:00:00` });
    await addMeal(client, { name: 'Soup', carbs: 20, kcal: 180, logged_at: `${addDays(today, -6)}T19:00:00` });
    await addMeal(client, { name: 'Cake', carbs: 50, kcal: 5000, logged_at: `${addDays(today, -7)}T16:00:00` });

    const html = await (await client.get('/')).text();
    const summary = html.slice(
      html.indexOf('data-kind-summary="nutrition"'),
      html.indexOf('</section>', html.indexOf('data-kind-summary="nutrition"')),
    );
    expect(summary).toContain('<strong>1200.5 kcal</strong> in the last 7 days, 600.3 kcal a day on the 2 days with calories logged.');
    expect(summary).toContain('<svg viewBox=');
    expect(summary.match(/<rect class="chart-bar"/g)).toHaveLength(2);
    expect(summary).toContain('<td>1020.5 kcal</td>');
    expect(summary).toContain('<td>180 kcal</td>');
  });

  it('says when no calories were logged in the week', async () => {
    const client = stack.browser();
    await signUpNewUser(client, ZONE);
    expect(await (await client.get('/')).text()).toContain('No calories logged in the last 7 days.');
  });
});
