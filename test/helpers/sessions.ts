import { sessionKeyPrefix, SESSION_COOKIE } from '../../src/web/session.js';
import { signedInAgain } from './account.js';
import { signUpNewUser } from './flows.js';
import type { CookieClient } from './http-client.js';
import type { Stack } from './stack.js';

/** A new person's two browsers: the one that acts, and another whose session it ends. */
export async function personWithTwoSessions(stack: Stack): Promise<{ id: number; acting: CookieClient; other: CookieClient }> {
  const acting = stack.browser();
  const email = await signUpNewUser(acting);
  const other = await signedInAgain(acting, email);
  const { id } = await stack.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirstOrThrow();
  return { id, acting, other };
}

/** Where the client's session is kept in Redis: its cookie is the session id, signed (`s:<id>.<signature>`). */
export function sessionKeyOf(stack: Stack, client: CookieClient): string {
  const sessionId = /^s:([^.]+)\./.exec(decodeURIComponent(client.cookie(SESSION_COOKIE)!))![1]!;
  return `${sessionKeyPrefix(stack.config.redis.prefix)}${sessionId}`;
}

/** The sessions in Redis that name the person. */
export async function storedSessionsOf(stack: Stack, userId: number): Promise<string[]> {
  const keys = await stack.redis.keys(`${sessionKeyPrefix(stack.config.redis.prefix)}*`);
  const named = await Promise.all(
    keys.map(async (key) => ((await stack.redis.get(key))?.includes(`"userId":${userId},`) ? key : undefined)),
  );
  return named.filter((key) => key !== undefined);
}
