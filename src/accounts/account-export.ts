import { effectiveStatus, reconnectReason } from '../connections/connection-health.js';
import { findConnection } from '../connections/connection.repository.js';
import { SUPPORTED_DATES } from '../dates/supported-dates.js';
import type { Db } from '../db/database.js';
import { KINDS } from '../kinds.js';
import { noticesOf } from '../notices/notice.repository.js';
import { dailySyncStatuses, syncFactsOf } from '../sync/sync-statuses.js';
import { exportField } from './export-pieces.js';
import type { User } from './user.table.js';

/**
 * Everything the app holds about the person, as JSON text in pieces (GDPR Art. 15 and 20): the
 * account, the connection's state (never a token: the sealed tokens are not even read), each kind's
 * part (src/kinds.ts: its rows, read in batches by key so that memory stays flat however much the
 * person logged), where each daily outbox entry's sync stands, and the mails sent about the
 * connection. Only the person's own rows are read.
 */
export async function* accountExport(db: Db, user: User, now: Date): AsyncGenerator<string> {
  const connection = await findConnection(db, user.id);
  yield `{"exportedAt":${JSON.stringify(now.toISOString())}`;
  yield exportField('account', {
    email: user.email,
    emailVerifiedAt: user.email_verified_at,
    timezone: user.timezone,
    createdAt: user.created_at,
    connectionMail: user.connection_mail === 1,
  });
  yield exportField(
    'connection',
    connection && {
      status: effectiveStatus(connection, now),
      reason: reconnectReason(connection, now),
      scopes: connection.scopes,
      refreshTokenExpiresAt: connection.refreshExpiresAt?.toISOString(),
    },
  );
  for (const kind of KINDS) yield* kind.account.exportOf(db, user.id);
  const days = await dailySyncStatuses(db, user.id, SUPPORTED_DATES.first, SUPPORTED_DATES.last);
  yield exportField(
    'syncDays',
    days.map((status) => ({ kind: status.kind, date: status.subject, ...syncFactsOf(status) })),
  );
  const notices = await noticesOf(db, user.id);
  yield exportField(
    'connectionMails',
    notices.map((notice) => ({
      kind: notice.kind,
      detail: notice.detail,
      happenedAt: notice.created_at,
      outcome: notice.outcome,
      settledAt: notice.settled_at,
    })),
  );
  yield '}';
}
