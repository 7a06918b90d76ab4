import { afterEach, describe, expect, it } from 'vitest';
import { ServiceError } from '../../src/provider/service-error.js';
import { syncEntry } from '../../src/sync/jobs.js';
import { connectedUser } from '../helpers/flows.js';
import { addMeal } from '../helpers/meals.js';
import { serviceApiWith } from '../helpers/service-api.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

afterEach(async () => {
  await stack.close();
});

const nutritionDay = (userId: number, date: string) => ({ userId, kind: 'nutrition' as const, subject: date });

describe('the dashboard', () => {
  it('links every capability that is on to its page', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client } = await connectedUser(stack);
    const dashboard = await (await client.get('/')).text();
    for (const [id, page] of [['nutrition', '/meals'], ['wellness', '/wellness'], ['activities', '/activities'], ['workouts', '/workouts']]) {
      expect(dashboard).toMatch(new RegExp(`data-capability="${id}">\\s*<span><a href="${page}">[\\s\\S]*?class="on">On`));
    }
  });

  it('shows where each kind’s sync stands: sent in the person’s time zone, refused with the service’s words, waiting', async () => {
    stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
    const { client, userId } = await connectedUser(stack, { timezone: 'Asia/Kathmandu' });
    await addMeal(client, { name: 'Oats', carbs: 60, logged_at: '2026-03-10T08:00:00+05:45' });
    await addMeal(client, { name: 'Rice', carbs: 80, logged_at: '2026-03-11T12:00:00+05:45' });
    await addMeal(client, { name: 'Dal', carbs: 40, logged_at: '2026-03-12T19:00:00+05:45' });
    const sentAt = new Date('2026-03-10T10:00:00Z');
    await syncEntry({ ...stack.sendDependencies(), clock: () => sentAt }, nutritionDay(userId, '2026-03-10'));
    const refusing = serviceApiWith({
      upsertNutrition: async () => {
        throw new ServiceError('permanent', 'HTTP 400: invalid_request: items.0.carbs: too many');
      },
    });
    await syncEntry(stack.sendDependencies(refusing), nutritionDay(userId, '2026-03-11'));

    const dashboard = await (await client.get('/')).text();
    const nutrition = dashboard.slice(dashboard.indexOf('data-sync-kind="nutrition"'));
    expect(nutrition).toContain('1 waiting, 1 refused by the service.');
    expect(nutrition).toMatch(/href="\/meals\?date=2026-03-10">2026-03-10<\/a>\s*<span class="on">Sent 10 Mar, 15:45</);
    expect(nutrition).toMatch(/href="\/meals\?date=2026-03-11">2026-03-11<\/a>[\s\S]*?Refused by the service: HTTP 400: invalid_request: items.0.carbs: too many/);
    expect(nutrition).toMatch(/href="\/meals\?date=2026-03-12">2026-03-12<\/a>\s*<span class="off">Waiting to be sent</);
  });
});
