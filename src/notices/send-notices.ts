import { randomUUID } from 'node:crypto';
import { reconnectNeededSoon } from '../connections/connection-health.js';
import { findConnection, type Connection } from '../connections/connection.repository.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { MAIL_TIMEOUTS_MS, MailRefused, type Mailer } from './mailer.js';
import { noticeMail } from './notice-mail.js';
import { claimNotice, dueNoticeIds, postponeNotice, settleNotice } from './notice.repository.js';
import type { ConnectionNotice, NoticeOutcome } from './notice.table.js';
import type { UnsubscribeLinks } from './unsubscribe-link.js';

export interface NoticeSendingDependencies {
  db: Db;
  /** Undefined while mail is off (no SMTP_URL): each notice is then settled without a mail. */
  mailer: Mailer | undefined;
  appBaseUrl: string;
  /** The one-click unsubscribe link each mail carries. */
  unsubscribeLinks: UnsubscribeLinks;
  clock: () => Date;
  logger: Logger;
}

/** Notices one run looks at at most; the rest wait for the next run. */
const BATCH = 50;
/** A claim outlasts the longest a send may take (mailer.ts), so a live sender never loses its notice. */
const CLAIM_MS = 2 * (MAIL_TIMEOUTS_MS.connection + MAIL_TIMEOUTS_MS.greeting + MAIL_TIMEOUTS_MS.socket);
const FIRST_RETRY_MS = 60_000;
const LONGEST_RETRY_MS = 3_600_000;

/**
 * Sends the mails of due notices (the notification outbox, docs/architecture.md): each is claimed
 * first (compare-and-swap), mailed, then settled. A worker killed after the incident was recorded
 * leaves the notice due, and the next run sends it; one killed while sending leaves it claimed, and
 * it is sent once the claim runs out. The one window left is a crash after the mail server took the
 * mail and before it is settled: it is then sent again with the same Message-ID. A server that
 * refuses for now is tried again later, backing off to an hour; one that refuses for good (5xx)
 * settles the notice. Returns how many it mailed.
 */
export async function sendDueNotices(deps: NoticeSendingDependencies): Promise<number> {
  const { db, clock } = deps;
  let mailed = 0;
  for (const id of await dueNoticeIds(db, clock(), BATCH)) {
    const now = clock();
    const claimed = await claimNotice(db, id, randomUUID(), now, new Date(now.getTime() + CLAIM_MS));
    if (claimed && (await deliver(deps, claimed))) mailed += 1;
  }
  return mailed;
}

async function deliver(deps: NoticeSendingDependencies, notice: ConnectionNotice): Promise<boolean> {
  const { db, mailer, clock } = deps;
  const log = deps.logger.child({ module: 'notices', userId: notice.user_id, notice: notice.id });
  const settle = async (outcome: NoticeOutcome, error?: string) => {
    await settleNotice(db, notice, outcome, clock(), error);
    return outcome === 'sent';
  };
  const person = await db
    .selectFrom('users')
    .select(['email', 'timezone', 'connection_mail', 'email_verified_at'])
    .where('id', '=', notice.user_id)
    .executeTakeFirst();
  // A deleted account's notices went with it.
  if (!person) return false;
  if (mailer === undefined) return settle('mail_off');
  if (person.connection_mail !== 1) return settle('turned_off');
  // Only to an address its owner confirmed: one typed wrong at sign-up, or someone else's, gets nothing.
  if (person.email_verified_at === null) return settle('unverified');
  if (!stillHappening(notice, await findConnection(db, notice.user_id), clock())) return settle('resolved');
  try {
    await mailer.send(noticeMail(notice, person, deps.appBaseUrl, deps.unsubscribeLinks.linkFor(notice)));
  } catch (error) {
    if (!(error instanceof MailRefused)) throw error;
    log.warn({ err: error, attempts: notice.attempts }, 'connection mail not sent');
    if (error.permanent) return settle('refused', error.message);
    const retryInMs = Math.min(FIRST_RETRY_MS * 2 ** (notice.attempts - 1), LONGEST_RETRY_MS);
    await postponeNotice(db, notice, new Date(clock().getTime() + retryInMs), error.message);
    return false;
  }
  log.info({ kind: notice.kind }, 'connection mail sent');
  return settle('sent');
}

/** A Reconnect (a new grant) ends any incident; a refresh that moved the expiry ends an expiring one. */
function stillHappening(notice: ConnectionNotice, connection: Connection | undefined, now: Date): boolean {
  if (connection?.grantId !== notice.grant_id) return false;
  return notice.kind !== 'expiring' || reconnectNeededSoon(connection, now);
}
