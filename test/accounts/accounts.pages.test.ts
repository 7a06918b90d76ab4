import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hiddenField, type CookieClient } from '../helpers/http-client.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

async function postSignUp(client: CookieClient, fields: Record<string, string>): Promise<Response> {
  const page = await (await client.get('/signup')).text();
  return client.postForm('/signup', { ...fields, _csrf: hiddenField(page, '_csrf') });
}

/** The sign-up form's field of that name: its input and the words next to it. */
function fieldOf(html: string, name: string): string {
  const start = html.lastIndexOf('<span class="field">', html.indexOf(`name="${name}"`));
  return html.slice(start, html.indexOf('</span>\n', html.indexOf('</label>', start)));
}

describe('the sign-up page', () => {
  it('offers the time zone as a searchable list of IANA’s zones, each under its current name', async () => {
    const page = await (await stack.browser().get('/signup')).text();
    expect(fieldOf(page, 'timezone')).toContain('list="signup-zones"');
    const zones = [
      ...(page.match(/<datalist id="signup-zones">([\s\S]*?)<\/datalist>/)?.[1] ?? '').matchAll(/<option value="([^"]+)">/g),
    ].map((m) => m[1]);
    expect(zones).toContain('Europe/Berlin');
    expect(zones).toContain('Europe/Kyiv');
    expect(zones).not.toContain('Europe/Kiev');
    expect(zones).toEqual([...zones].sort());
  });

  it('keeps what was typed and says what is wrong in plain words next to each refused field', async () => {
    const response = await postSignUp(stack.browser(), { email: 'ana@', password: 'a long password', timezone: 'Berlin' });
    expect(response.status).toBe(400);
    const page = await response.text();
    expect(page).not.toContain('IANA');
    const email = fieldOf(page, 'email');
    expect(email).toContain('value="ana@"');
    expect(email).toContain('aria-invalid="true" aria-describedby="signup-email-problem"');
    expect(email).toContain(
      '<span class="field-problem" id="signup-email-problem">Email must be an email address, such as ana@example.com.</span>',
    );
    const timezone = fieldOf(page, 'timezone');
    expect(timezone).toContain('value="Berlin"');
    expect(timezone).toContain(
      '<span class="field-problem" id="signup-timezone-problem">Time zone must be one from the list, such as Europe/Berlin.</span>',
    );
    expect(fieldOf(page, 'password')).not.toContain('aria-invalid');
    expect(fieldOf(page, 'password')).not.toContain('a long password');
  });

  it('marks the email when an account with it exists', async () => {
    const fields = { email: 'taken@example.com', password: 'a long password', timezone: 'Europe/Berlin' };
    expect((await postSignUp(stack.browser(), fields)).status).toBe(303);
    const response = await postSignUp(stack.browser(), fields);
    expect(response.status).toBe(409);
    const email = fieldOf(await response.text(), 'email');
    expect(email).toContain('value="taken@example.com"');
    expect(email).toContain('An account with this email already exists: sign in instead, or use another email.');
  });
});
