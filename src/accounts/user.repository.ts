import type { ExpressionBuilder, Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';
import { lockRows } from '../db/portable.js';
import type { NewUser, User } from './user.table.js';

/** Inserts the user, or returns undefined when the email is already taken. */
export async function insertUser(db: Db, user: NewUser): Promise<User | undefined> {
  return db
    .insertInto('users')
    .values(user)
    .onConflict((conflict) => conflict.column('email').doNothing())
    .returningAll()
    .executeTakeFirst();
}

export async function findUserByEmail(db: Db, email: string): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export async function findUserById(db: Db, id: number): Promise<User | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateTimezone(db: Db, id: number, timezone: string): Promise<void> {
  await db.updateTable('users').set({ timezone }).where('id', '=', id).execute();
}

/** The same password hashed anew (a stronger hash at sign-in): the person's sessions go on. */
export async function updatePasswordHash(db: Db, id: number, passwordHash: string): Promise<void> {
  await db.updateTable('users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
}

const nextSessionGeneration = (update: ExpressionBuilder<Database, 'users'>) => update('session_generation', '+', 1);

/**
 * A new password, and in the same write the end of every session started under the old one (user.table.ts).
 * Returns the new session generation, for the session that changed it to go on under; undefined when the account is gone.
 */
export async function changePasswordHash(db: Db, id: number, passwordHash: string): Promise<number | undefined> {
  const changed = await db
    .updateTable('users')
    .set((update) => ({ password_hash: passwordHash, session_generation: nextSessionGeneration(update) }))
    .where('id', '=', id)
    .returning('session_generation')
    .executeTakeFirst();
  return changed?.session_generation;
}

/** Ends every session of the person at once, wherever it is kept and whatever writes it back later (sign out everywhere). */
export async function endEverySession(db: Db, id: number): Promise<void> {
  await db
    .updateTable('users')
    .set((update) => ({ session_generation: nextSessionGeneration(update) }))
    .where('id', '=', id)
    .execute();
}

/**
 * Holds the user's row until the transaction ends, so that one person's writes that read before
 * they write (a day's item count, the item being changed) run one after another.
 */
export async function lockUser(trx: Transaction<Database>, id: number): Promise<void> {
  await lockRows(trx, () => trx.selectFrom('users').select('id').where('id', '=', id));
}

/**
 * The person's account was deleted while their request ran: nothing of theirs is written, and the
 * request is answered as one without a signed-in person (the error handler reads `status`).
 */
export class AccountGoneError extends Error {
  override name = 'AccountGoneError';
  readonly status = 401;

  constructor() {
    super('Sign in first.');
  }
}

/** lockUser for a change the person asked for, whose account may be deleted while the request runs. */
export async function lockSignedInUser(trx: Transaction<Database>, id: number): Promise<void> {
  await lockUser(trx, id);
  if (!(await findUserById(trx, id))) throw new AccountGoneError();
}

/** Whether the person gets a mail when their connection needs them (src/notices/). */
export async function updateConnectionMail(db: Db, id: number, wanted: boolean): Promise<void> {
  await db
    .updateTable('users')
    .set({ connection_mail: wanted ? 1 : 0 })
    .where('id', '=', id)
    .execute();
}
