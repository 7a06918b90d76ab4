import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIRST_RELEASE_SCRYPT_HASH } from '../helpers/first-release-hash.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => {
  await stack.close();
});

const password = 'a long password';

async function storedHash(email: string): Promise<string> {
  const user = await stack.db.selectFrom('users').select('password_hash').where('email', '=', email).executeTakeFirstOrThrow();
  return user.password_hash;
}

describe('password hashes at sign-in', () => {
  it('an account of the first release (scrypt) signs in, and its stored hash becomes Argon2id', async () => {
    const email = 'first-release@example.com';
    await stack.db
      .insertInto('users')
      .values({ email, password_hash: FIRST_RELEASE_SCRYPT_HASH, timezone: 'UTC', created_at: '2026-11-21T00:00:00Z' })
      .execute();

    expect((await stack.browser().postJson('/api/login', { email, password })).status).toBe(200);
    expect(await storedHash(email)).toMatch(/^\$argon2id\$v=19\$m=7168,p=1,t=5\$/);
    expect((await stack.browser().postJson('/api/login', { email, password })).status).toBe(200);
  });

  it('a burst of sign-ins leaves the thread pool to others: a stylesheet is answered before most of them', async () => {
    const signIns = 16;
    const answered: string[] = [];
    const inFlight = Array.from({ length: signIns }, (_, i) =>
      stack
        .browser()
        .postJson('/api/login', { email: `nobody${i}@example.com`, password })
        .then((response) => answered.push(`sign-in ${response.status}`)),
    );
    // Asked once the first sign-in is answered, so the others are surely being hashed by then.
    await Promise.race(inFlight);
    const stylesheet = stack
      .browser()
      .get('/assets/style.css')
      .then((response) => answered.push(`stylesheet ${response.status}`));
    await Promise.all([...inFlight, stylesheet]);

    expect(answered).toHaveLength(signIns + 1);
    expect(answered.indexOf('stylesheet 200')).toBeLessThan(signIns / 2);
  });
});
