import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUpNewUser } from '../helpers/flows.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { putWellness } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

describe("the account's export of wellness", () => {
  it("holds the person's days and their sync, and no one else's", async () => {
    const client = stack.browser();
    await signUpNewUser(client, 'Europe/Kyiv');
    await putWellness(client, '2026-03-10', { hrv: 61, sleepSecs: 27000 });
    const someoneElse = stack.browser();
    await signUpNewUser(someoneElse);
    await putWellness(someoneElse, '2026-03-10', { hrv: 99 });

    const response = await client.get('/api/account/export');

    expect(response.status).toBe(200);
    expect(JSON.parse(await response.text())).toMatchObject({
      wellness: [{ date: '2026-03-10', hrv: 61, sleepSecs: 27000 }],
      syncDays: [expect.objectContaining({ kind: 'wellness', date: '2026-03-10', status: 'pending' })],
    });
  });
});
