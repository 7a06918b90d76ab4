import type { Db } from '../db/database.js';
import type { SignInInput, SignUpInput } from './account.schemas.js';
import { hashPassword, verifyPassword, verifyPasswordOfUnknownUser } from './password.js';
import { findUserByEmail, insertUser } from './user.repository.js';
import type { User } from './user.table.js';

export type SignUpResult = { ok: true; user: User } | { ok: false; reason: 'email_taken' };

export async function signUp(db: Db, input: SignUpInput, now: Date): Promise<SignUpResult> {
  const user = await insertUser(db, {
    email: input.email,
    password_hash: await hashPassword(input.password),
    timezone: input.timezone,
    created_at: now.toISOString(),
  });
  return user ? { ok: true, user } : { ok: false, reason: 'email_taken' };
}

/** The user whose email and password these are, or undefined (never saying which was wrong). */
export async function signIn(db: Db, input: SignInInput): Promise<User | undefined> {
  const user = await findUserByEmail(db, input.email);
  if (!user) return verifyPasswordOfUnknownUser(input.password).then(() => undefined);
  return (await verifyPassword(input.password, user.password_hash)) ? user : undefined;
}
