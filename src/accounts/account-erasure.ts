import type { Db } from '../db/database.js';
import { KINDS } from '../kinds.js';
import type { Logger } from '../logger.js';
import type { AttemptLimits } from './attempt-limits.js';
import { lockUser } from './user.repository.js';
import type { User } from './user.table.js';

export interface AccountErasureDependencies {
  db: Db;
  /**
   * Drops the person's queued sync jobs, before their data goes. A job it cannot drop (Redis away,
   * or one running) finds no outbox entry and no connection when it runs, and ends without a call.
   */
  forgetQueuedWork: (userId: number) => Promise<void>;
  /** Ends every session of the person (web/user-sessions.ts). */
  endSessions: (userId: number) => Promise<void>;
  attemptLimits: Pick<AttemptLimits, 'forgetAccount'>;
  clock: () => Date;
  logger: Logger;
}

/** The shared tables with rows of a person, by `user_id`, deleted after the kinds' rows and before `users` itself. */
const SHARED_TABLES_OF_A_PERSON = ['outbox', 'connection_notices', 'connections', 'email_links'] as const;

/** How many deletions whose Redis part was left undone one sweep finishes. */
const SWEEP_BATCH = 100;

/**
 * Deleting an account: every row of the person goes in one transaction on the store (each kind's
 * rows and files, src/kinds.ts; the outbox, the sealed tokens, the mails' notices, the user); then what Redis holds
 * of them (their sessions, sign-in counts). Redis may be away at that moment: the transaction leaves
 * a row in `account_erasures` naming only the user id, removed once Redis is done, and the sweep
 * (finishPendingErasures, run by the workers) finishes what was left. Meanwhile nothing of theirs can be
 * sent: the rows a sync job would send from, and the tokens it would send with, are gone.
 */
export function createAccountErasure(deps: AccountErasureDependencies) {
  const { db, clock } = deps;
  const log = deps.logger.child({ module: 'account-erasure' });

  async function deleteFromStore(userId: number): Promise<void> {
    await db.transaction().execute(async (trx) => {
      await lockUser(trx, userId);
      for (const kind of KINDS) await kind.account.eraseOf(trx, userId);
      for (const table of SHARED_TABLES_OF_A_PERSON) await trx.deleteFrom(table).where('user_id', '=', userId).execute();
      await trx.insertInto('account_erasures').values({ user_id: userId, erased_at: clock().toISOString() }).execute();
      await trx.deleteFrom('users').where('id', '=', userId).execute();
    });
  }

  return {
    /** Deletes the account; its Redis part is finished now, or by a later sweep if Redis is away. */
    async erase(user: Pick<User, 'id' | 'email'>): Promise<void> {
      await deps
        .forgetQueuedWork(user.id)
        .catch((error: unknown) => log.warn({ err: error, userId: user.id }, 'queued jobs not dropped; they will find nothing to send'));
      await deleteFromStore(user.id);
      log.info({ userId: user.id }, 'account deleted');
      try {
        await deps.attemptLimits.forgetAccount(user.email, user.id);
        await finishInRedis(db, deps.endSessions, user.id);
      } catch (error) {
        log.warn({ err: error, userId: user.id }, 'sessions of a deleted account not ended yet; the sweep will');
      }
    },
  };
}

/** Ends the person's sessions, then forgets that anything was left to do. */
async function finishInRedis(db: Db, endSessions: (userId: number) => Promise<void>, userId: number): Promise<void> {
  await endSessions(userId);
  await db.deleteFrom('account_erasures').where('user_id', '=', userId).execute();
}

/**
 * The sweep the workers run: ends the sessions of deleted accounts whose deletion could not (Redis was
 * away). Their sign-in counts are not kept past 15 minutes anyway. Returns how many it finished.
 */
export async function finishPendingErasures(db: Db, endSessions: (userId: number) => Promise<void>): Promise<number> {
  const pending = await db.selectFrom('account_erasures').select('user_id').orderBy('erased_at').limit(SWEEP_BATCH).execute();
  for (const { user_id } of pending) await finishInRedis(db, endSessions, user_id);
  return pending.length;
}

export type AccountErasure = ReturnType<typeof createAccountErasure>;
