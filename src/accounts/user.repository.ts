import type { ExpressionBuilder, Transaction } from 'kysely';
import type { Database, Db } from '../db/database.js';
import { lockRows, readAndLockRows } from '../db/portable.js';
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

/** Throws AccountGoneError when the account was deleted while the request ran: nothing was saved. */
export async function updateTimezone(db: Db, id: number, timezone: string): Promise<void> {
  const { numUpdatedRows } = await db.updateTable('users').set({ timezone }).where('id', '=', id).executeTakeFirst();
  if (numUpdatedRows === 0n) throw new AccountGoneError();
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
    .set((update) => ({
      password_hash: passwordHash,
      session_generation: nextSessionGeneration(update),
      sessions_ended_by: 'password_changed',
    }))
    .where('id', '=', id)
    .returning('session_generation')
    .executeTakeFirst();
  return changed?.session_generation;
}

/** Ends every session of the person at once, wherever it is kept and whatever writes it back later (sign out everywhere). */
export async function endEverySession(db: Db, id: number): Promise<void> {
  await db
    .updateTable('users')
    .set((update) => ({ session_generation: nextSessionGeneration(update), sessions_ended_by: 'signed_out_everywhere' }))
    .where('id', '=', id)
    .execute();
}

/**
 * Holds the user's row until the transaction ends, so that one person's writes that read before
 * they write (a day's item count, the item being changed) run one after another.
 */
export async function lockUser(trx: Transaction<Database>, id: number): Promise<void> {
  await lockRows(trx, userRow(trx, id));
}

const userRow = (trx: Transaction<Database>, id: number) => () => trx.selectFrom('users').select('id').where('id', '=', id);

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
  if ((await readAndLockRows(trx, userRow(trx, id))).length === 0) throw new AccountGoneError();
}

/**
 * Whether the person gets a mail when their connection needs them (src/notices/). Answers whether
 * the account is still there to take it (one deleted meanwhile is mailed nothing anyway).
 */
export async function updateConnectionMail(db: Db, id: number, wanted: boolean): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('users')
    .set({ connection_mail: wanted ? 1 : 0 })
    .where('id', '=', id)
    .executeTakeFirst();
  return numUpdatedRows > 0n;
}

/** updateConnectionMail for the person's own request: their account deleted meanwhile is an AccountGoneError. */
export async function changeConnectionMail(db: Db, id: number, wanted: boolean): Promise<void> {
  if (!(await updateConnectionMail(db, id, wanted))) throw new AccountGoneError();
}
