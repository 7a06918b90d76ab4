import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, sendJson } from '../helpers/account.js';
import { fitFile } from '../helpers/fit-files.js';
import { connectedUser } from '../helpers/flows.js';
import { cellsNaming } from '../helpers/person-traces.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { uploadActivity } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
});
afterAll(async () => {
  await stack.close();
});

describe("the account's deletion", () => {
  it("deletes the person's activities with their stored files and their outbox entries: no row names the person", async () => {
    const { client, userId } = await connectedUser(stack);
    const { email } = await stack.db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirstOrThrow();
    const person = { id: userId, email };
    await uploadActivity(client, fitFile(userId));
    expect(await cellsNaming(stack.db, stack.database, person)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^activities\.user_id = /),
        expect.stringMatching(/^activity_files\.key = /),
        expect.stringMatching(/^outbox\.user_id = /),
      ]),
    );

    expect((await sendJson(client, 'DELETE', '/api/account', { password: PASSWORD })).status).toBe(204);

    expect(await cellsNaming(stack.db, stack.database, person)).toEqual([]);
  });
});
