import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, sendJson } from '../helpers/account.js';
import { connectHeldAtTokenAnswer } from '../helpers/flows.js';
import { personWithTwoSessions, sessionKeyOf, storedSessionsOf } from '../helpers/sessions.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
});
afterAll(async () => {
  await stack.close();
});

const NEW_PASSWORD = 'another long password';

describe('a session ended while one of its requests is under way', () => {
  it('stays ended after a new password, though a request under way writes it back as it finishes (401)', async () => {
    const { acting, other } = await personWithTwoSessions(stack);
    const callback = await connectHeldAtTokenAnswer(stack, other, 3000);

    expect((await acting.postJson('/api/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD })).status).toBe(204);
    expect((await other.get('/api/me')).status).toBe(401);
    expect(await (await other.get('/login')).text()).toContain('You were signed out because your password was changed');
    expect(callback.answered()).toBe(false);
    expect((await callback.answer).status).toBe(303);

    expect((await other.get('/api/me')).status).toBe(401);
    expect((await acting.get('/api/me')).status).toBe(200);
  });

  it('one written back and then outlived by its account signs no one in, and leaves Redis at its next request', async () => {
    const { id, acting, other } = await personWithTwoSessions(stack);
    const callback = await connectHeldAtTokenAnswer(stack, other, 3000);
    expect((await acting.postJson('/api/account/password', { current_password: PASSWORD, new_password: NEW_PASSWORD })).status).toBe(204);
    expect(callback.answered()).toBe(false);
    expect((await callback.answer).status).toBe(303);

    expect((await sendJson(acting, 'DELETE', '/api/account', { password: NEW_PASSWORD })).status).toBe(204);

    expect((await other.get('/api/me')).status).toBe(401);
    expect(await storedSessionsOf(stack, id)).toEqual([]);
  });

  it("stays ended when Connect's callback, under way, renews it after the person signed out everywhere (401)", async () => {
    const { acting, other } = await personWithTwoSessions(stack);
    const callback = await connectHeldAtTokenAnswer(stack, other, 3000);

    expect((await acting.postJson('/api/account/logout-everywhere', {})).status).toBe(204);
    expect(callback.answered()).toBe(false);
    expect((await callback.answer).status).toBe(303);

    expect((await other.get('/api/me')).status).toBe(401);
    expect((await acting.get('/api/me')).status).toBe(401);
    // Written back over what was left saying why, it is told by the person's last reason.
    expect(await (await other.get('/login')).text()).toContain('You were signed out because “Sign out everywhere” was chosen');
  });

  it('a session from before sessions kept their generation is ended at its next request; the others go on', async () => {
    const { acting, other } = await personWithTwoSessions(stack);
    const key = sessionKeyOf(stack, other);
    const { sessionGeneration: _generation, ...older } = JSON.parse((await stack.redis.get(key))!) as Record<string, unknown>;
    await stack.redis.set(key, JSON.stringify(older), 'KEEPTTL');

    expect((await other.get('/api/me')).status).toBe(401);
    expect(await stack.redis.exists(key)).toBe(0);
    expect((await acting.get('/api/me')).status).toBe(200);
  });
});
