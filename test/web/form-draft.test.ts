import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_COOKIE, sessionKeyPrefix } from '../../src/web/session.js';
import { signUpNewUser } from '../helpers/flows.js';
import { bodyOf, hiddenField, type CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

/**
 * The form these cases send: the time zone's, on the dashboard, which every copy of the app has
 * whichever kinds it keeps. The drafts are the shared app's, the same for a kind's forms.
 */
const PAGE = '/';
const FORM = '/settings/timezone';
const SIGNED_UP_IN = 'Europe/Berlin';

/** Ends the client's session behind its back, as a Redis emptied by a restart of the demo, or its idle limit, does. */
async function endSessionOf(client: CookieClient): Promise<void> {
  const sessionId = /^s:([^.]+)\./.exec(decodeURIComponent(client.cookie(SESSION_COOKIE)!))![1]!;
  expect(await stack.redis.del(`${sessionKeyPrefix(stack.config.redis.prefix)}${sessionId}`)).toBe(1);
}

/** The time zone the person's account holds. */
async function timezoneOf(client: CookieClient): Promise<string> {
  return (await bodyOf<{ timezone: string }>(await client.get('/api/me'))).timezone;
}

/** What the page's time zone field holds. */
function typedOn(page: string): string | undefined {
  return /<input name="timezone" value="([^"]*)"/.exec(page)?.[1];
}

describe('a form sent after its session ended', () => {
  it('leads to sign in, and back to its page with what was typed, saving nothing meanwhile', async () => {
    const client = stack.browser();
    const email = await signUpNewUser(client, SIGNED_UP_IN);
    const _csrf = hiddenField(await (await client.get(PAGE)).text(), '_csrf');
    await endSessionOf(client);

    const sent = await client.postForm(FORM, { _csrf, timezone: 'Pacific/Chatham' }, { referer: `${stack.appUrl}${PAGE}` });
    expect(sent.status).toBe(303);
    expect(sent.headers.get('location')).toBe(`/login?next=${encodeURIComponent(PAGE)}`);
    const signIn = await (await client.get(sent.headers.get('location')!)).text();
    expect(signIn).toContain('You had been signed out, so what you sent was not saved: sign in, and it is back on its page to save again.');

    const signedIn = await client.postForm('/login', {
      _csrf: hiddenField(signIn, '_csrf'),
      email,
      password: 'a long password',
      next: PAGE,
    });
    expect(signedIn.headers.get('location')).toBe(PAGE);
    const page = await (await client.get(PAGE)).text();
    expect(page).toContain('You had been signed out, so this was not saved: check it and save it again.');
    expect(typedOn(page)).toBe('Pacific/Chatham');
    expect(await timezoneOf(client)).toBe(SIGNED_UP_IN);
    expect(typedOn(await (await client.get(PAGE)).text())).toBe(SIGNED_UP_IN);
  });

  it('keeps a form open in another tab working after a new password renewed the session', async () => {
    const client = stack.browser();
    await signUpNewUser(client, SIGNED_UP_IN);
    const _csrf = hiddenField(await (await client.get(PAGE)).text(), '_csrf');
    expect(
      (await client.postJson('/api/account/password', { current_password: 'a long password', new_password: 'another long password' }))
        .status,
    ).toBe(204);
    const sent = await client.postForm(FORM, { _csrf, timezone: 'Pacific/Chatham' });
    expect(sent.status).toBe(303);
    expect(sent.headers.get('location')).toBe(PAGE);
    expect(await timezoneOf(client)).toBe('Pacific/Chatham');
  });
});
