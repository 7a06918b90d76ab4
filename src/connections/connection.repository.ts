import { randomUUID } from 'node:crypto';
import { sql, type ExpressionBuilder, type Insertable } from 'kysely';
import type { Database, Db } from '../db/database.js';
import { recordIncident } from '../notices/notice.repository.js';
import type { Scope } from '../provider/scopes.js';
import type { TokenSet } from '../provider/token-set.js';
import type { ConnectionTimes } from './connection-health.js';
import type { ConnectionRow, ConnectionStatus, ConnectionTable, StatusReason } from './connection.table.js';
import type { TokenCipher } from './token-crypto.js';

/** A connection as the rest of the app sees it: status and grant, never the tokens. */
export interface Connection {
  userId: number;
  grantId: string;
  status: ConnectionStatus;
  statusReason: StatusReason | undefined;
  scopes: Scope[];
  issuedAt: Date;
  expiresAt: Date;
  refreshExpiresAt: Date | undefined;
  /** A refresh in progress, or, once expired, one whose outcome is unknown (connection.table.ts). */
  refreshLease: RefreshLease | undefined;
  version: number;
}

export interface RefreshLease {
  /** A random id per refresh attempt. */
  owner: string;
  until: Date;
}

/** A connection with its tokens opened: only access-token.ts and reseal.ts ask for this. */
export interface StoredGrant extends Connection {
  readable: true;
  /** The key that sealed the tokens (token-crypto.ts). */
  tokenKeyId: string;
  accessToken: string;
  refreshToken: string;
}

/**
 * A connection whose tokens this process cannot open:
 * - key_missing: the key id that sealed them is none of this process's keys. Key ids are derived
 *   from the keys, so nothing tells a newer key this process was not given yet (a rotation under
 *   way) from an older one dropped from the settings: this process cannot conclude anything.
 * - damaged: the key that sealed them is configured here but does not open them (altered, or
 *   copied from another row): no key ever will.
 */
export interface UnreadableGrant extends Connection {
  readable: false;
  tokenKeyId: string;
  unreadable: 'key_missing' | 'damaged';
}

/** Why stored tokens cannot be opened, for the log. */
export const UNREADABLE_TOKENS: Record<UnreadableGrant['unreadable'], string> = {
  key_missing: 'the stored tokens are sealed with a key that is not configured here (a newer key, or an older one dropped)',
  damaged: 'the stored tokens do not open with the key that sealed them (altered, or copied from another row)',
};

export type IssuedTokens = TokenSet & { refreshToken: string };

type TokenField = 'access_token' | 'refresh_token';

/** Binds each sealed token to its row and field (see token-crypto.ts). */
function associatedData(userId: number, field: TokenField): string {
  return `connection:${userId}:${field}`;
}

/**
 * Both tokens sealed afresh under the current key, so the row's one key id is right for both
 * even when the refresh token itself did not change.
 */
function sealedTokenColumns(cipher: TokenCipher, userId: number, tokens: Pick<IssuedTokens, 'accessToken' | 'refreshToken'>) {
  const access = cipher.seal(tokens.accessToken, associatedData(userId, 'access_token'));
  const refresh = cipher.seal(tokens.refreshToken, associatedData(userId, 'refresh_token'));
  return { token_key_id: access.keyId, access_token_sealed: access.sealed, refresh_token_sealed: refresh.sealed };
}

/** A write that settles a refresh's outcome (new tokens, a new grant, a refusal) ends its lease too. */
const NO_REFRESH_LEASE = { refresh_lease_owner: null, refresh_lease_until: null };

/** The columns a token response writes. */
function tokenColumns(cipher: TokenCipher, userId: number, tokens: IssuedTokens, now: Date) {
  return {
    ...sealedTokenColumns(cipher, userId, tokens),
    ...NO_REFRESH_LEASE,
    issued_at: tokens.issuedAt.toISOString(),
    expires_at: tokens.expiresAt.toISOString(),
    refresh_expires_at: tokens.refreshExpiresAt?.toISOString() ?? null,
    scopes: tokens.scopes.join(' '),
    updated_at: now.toISOString(),
  };
}

/**
 * Stores the grant from a completed Connect. Reconnecting replaces the previous tokens with a new
 * grant id, so any writer still holding the old grant loses its compare-and-swap, even after a
 * Disconnect deleted the row and its version count.
 */
export async function saveConnection(db: Db, cipher: TokenCipher, userId: number, tokens: IssuedTokens, now: Date): Promise<void> {
  await saveConnections(db, [newConnectionRow(cipher, userId, tokens, now)]);
}

/** The row a completed Connect stores, its tokens sealed for this user. */
export function newConnectionRow(cipher: TokenCipher, userId: number, tokens: IssuedTokens, now: Date): Insertable<ConnectionTable> {
  return {
    user_id: userId,
    grant_id: randomUUID(),
    ...tokenColumns(cipher, userId, tokens, now),
    status: 'connected',
    status_reason: null,
    version: 1,
    created_at: now.toISOString(),
  };
}

/** Stores completed Connects in one statement, each as saveConnection does (a load run connects thousands at once). */
export async function saveConnections(db: Db, rows: Insertable<ConnectionTable>[]): Promise<void> {
  await db
    .insertInto('connections')
    .values(rows)
    .onConflict((conflict) =>
      conflict.column('user_id').doUpdateSet((eb) => ({
        ...Object.fromEntries(REPLACED_BY_CONNECT.map((column) => [column, eb.ref(`excluded.${column}`)])),
        version: eb('connections.version', '+', 1),
      })),
    )
    .execute();
}

/** What a Connect replaces in a row already there: everything but the user, the row's start and its version count. */
const REPLACED_BY_CONNECT = [
  'grant_id',
  'token_key_id',
  'access_token_sealed',
  'refresh_token_sealed',
  'refresh_lease_owner',
  'refresh_lease_until',
  'issued_at',
  'expires_at',
  'refresh_expires_at',
  'scopes',
  'updated_at',
  'status',
  'status_reason',
] as const satisfies readonly (keyof ConnectionTable)[];

/** Which stored state a writer read: its write lands only if the row is still exactly that. */
export type ReadState = Pick<Connection, 'userId' | 'grantId' | 'version'>;

/** The row exactly as `read` saw it, as a where clause: a write with it lands only if nobody wrote since. */
function isAsRead(read: ReadState) {
  return (eb: ExpressionBuilder<Database, 'connections'>) =>
    eb.and({ user_id: read.userId, grant_id: read.grantId, version: read.version });
}

/**
 * Takes the right to refresh (docs/architecture.md, decision 5) before the token request: only if the row is
 * still as `read`, lease included (none, or the expired one `read` saw). Of processes that read
 * the same row, exactly one takes it. The version is not bumped: the tokens have not changed, so
 * `npm run reseal` may still seal them again meanwhile. True when taken.
 */
export async function takeRefreshLease(db: Db, read: ReadState & Pick<Connection, 'refreshLease'>, lease: RefreshLease): Promise<boolean> {
  const result = await db
    .updateTable('connections')
    .set({ refresh_lease_owner: lease.owner, refresh_lease_until: lease.until.toISOString() })
    .where(isAsRead(read))
    .where((eb) => {
      const seen = read.refreshLease;
      return seen ? eb('refresh_lease_owner', '=', seen.owner) : eb('refresh_lease_owner', 'is', null);
    })
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/** Ends `owner`'s lease after a definite failure: the service answered, and did not refresh. */
export async function releaseRefreshLease(db: Db, userId: number, owner: string): Promise<void> {
  await db
    .updateTable('connections')
    .set(NO_REFRESH_LEASE)
    .where('user_id', '=', userId)
    .where('refresh_lease_owner', '=', owner)
    .execute();
}

/**
 * Ends `owner`'s lease at `now` but keeps it, after token requests that got no answer: their
 * outcome is unknown, and whoever refreshes next must know that (access-token.ts).
 */
export async function expireRefreshLease(db: Db, userId: number, owner: string, now: Date): Promise<void> {
  await db
    .updateTable('connections')
    .set({ refresh_lease_until: now.toISOString() })
    .where('user_id', '=', userId)
    .where('refresh_lease_owner', '=', owner)
    .execute();
}

/**
 * Stores refreshed tokens in one write, only if the row is still as `read` (compare-and-swap):
 * a late writer never overwrites newer tokens. The same write ends the refresh lease. True when
 * stored. `refreshToken` and `refreshExpiresAt` describe the refresh token to hold from now on
 * (see access-token.ts).
 */
export async function storeRefreshedTokens(
  db: Db,
  cipher: TokenCipher,
  read: ReadState,
  tokens: IssuedTokens,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('connections')
    .set((eb) => ({ ...tokenColumns(cipher, read.userId, tokens, now), version: eb('version', '+', 1) }))
    .where(isAsRead(read))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/**
 * Seals the tokens of `read` again under the cipher's current key (`npm run reseal`), only if the
 * row is still as read. The version is compared but not bumped: the tokens are the same, so a
 * refresh in flight that read this row must still be able to store the tokens the service just
 * rotated (with a bumped version it would lose its compare-and-swap and drop them). True when stored.
 */
export async function storeResealedTokens(db: Db, cipher: TokenCipher, read: StoredGrant, now: Date): Promise<boolean> {
  const result = await db
    .updateTable('connections')
    .set({ ...sealedTokenColumns(cipher, read.userId, read), updated_at: now.toISOString() })
    .where(isAsRead(read))
    .executeTakeFirst();
  return result.numUpdatedRows === 1n;
}

/**
 * Only the person can restore the grant, by connecting again; `reason` tells them why. No refresh is
 * left to finish. The incident is recorded for a mail to the person in the same transaction
 * (src/notices/), so it is never lost, and only when this write changed the row.
 */
export async function markNeedsReconnect(db: Db, read: ReadState, reason: StatusReason, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const marked = await trx
      .updateTable('connections')
      .set((eb) => ({
        status: 'needs_reconnect',
        status_reason: reason,
        ...NO_REFRESH_LEASE,
        version: eb('version', '+', 1),
        updated_at: now.toISOString(),
      }))
      .where(isAsRead(read))
      .executeTakeFirst();
    if (marked.numUpdatedRows !== 1n) return;
    await recordIncident(trx, { userId: read.userId, grantId: read.grantId, kind: 'needs_reconnect', detail: reason }, now);
  });
}

/**
 * The service refused a call for lack of `scope` though the token response named it (RFC 6750
 * §3.1): the grant is taken to lack it from now on, so the sweeper stops sending that kind until
 * the person reconnects (or a later token response names the scope again). Losing it is an
 * incident the person is told of (src/notices/), recorded in the same transaction.
 */
export async function withdrawScope(db: Db, userId: number, scope: Scope, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const withdrawn = await trx
      .updateTable('connections')
      // Scopes are stored space-separated: padding both sides removes the whole name only.
      .set({ scopes: sql<string>`trim(replace(' ' || scopes || ' ', ${` ${scope} `}, ' '))`, updated_at: now.toISOString() })
      .where('user_id', '=', userId)
      .where(sql<boolean>`' ' || scopes || ' ' like ${`% ${scope} %`}`)
      .returning('grant_id')
      .executeTakeFirst();
    if (withdrawn) await recordIncident(trx, { userId, grantId: withdrawn.grant_id, kind: 'scope_missing', detail: scope }, now);
  });
}

export async function findConnection(db: Db, userId: number): Promise<Connection | undefined> {
  const row = await selectConnection(db, userId);
  return row && toConnection(row);
}

export async function loadGrant(db: Db, cipher: TokenCipher, userId: number): Promise<StoredGrant | UnreadableGrant | undefined> {
  const row = await selectConnection(db, userId);
  if (!row) return undefined;
  const tokenKeyId = row.token_key_id;
  if (!cipher.hasKey(tokenKeyId)) return { ...toConnection(row), readable: false, tokenKeyId, unreadable: 'key_missing' };
  const open = (sealed: string, field: TokenField) => cipher.open({ keyId: tokenKeyId, sealed }, associatedData(userId, field));
  try {
    return {
      ...toConnection(row),
      readable: true,
      tokenKeyId,
      accessToken: open(row.access_token_sealed, 'access_token'),
      refreshToken: open(row.refresh_token_sealed, 'refresh_token'),
    };
  } catch {
    // AES-GCM refuses what its key did not seal for this row and field: no retry can open it.
    return { ...toConnection(row), readable: false, tokenKeyId, unreadable: 'damaged' };
  }
}

/** The users with a stored connection, in any status (`npm run reseal`). */
export async function connectionUserIds(db: Db): Promise<number[]> {
  const rows = await db.selectFrom('connections').select('user_id').orderBy('user_id').execute();
  return rows.map((row) => row.user_id);
}

/** What the keep-alive reads of each connected connection: never its tokens. */
export type KeepAliveView = ConnectionTimes & Pick<Connection, 'userId' | 'grantId'>;

/**
 * A page of the connected connections, in the order of their user ids, from after `afterUserId`:
 * read along the primary key (keyset paging), so a page costs its rows whatever the table holds,
 * and only the columns the keep-alive needs.
 */
export async function connectedConnectionsAfter(db: Db, afterUserId: number, limit: number): Promise<KeepAliveView[]> {
  const rows = await db
    .selectFrom('connections')
    .select(['user_id', 'grant_id', 'status', 'issued_at', 'refresh_expires_at', 'refresh_lease_owner', 'refresh_lease_until'])
    .where('user_id', '>', afterUserId)
    .where('status', '=', 'connected')
    .orderBy('user_id')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    userId: row.user_id,
    grantId: row.grant_id,
    status: row.status,
    issuedAt: new Date(row.issued_at),
    refreshExpiresAt: refreshExpiresAtOf(row),
    refreshLease: refreshLeaseOf(row),
  }));
}

export async function deleteConnection(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('connections').where('user_id', '=', userId).execute();
}

function selectConnection(db: Db, userId: number): Promise<ConnectionRow | undefined> {
  return db.selectFrom('connections').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

function toConnection(row: ConnectionRow): Connection {
  return {
    userId: row.user_id,
    grantId: row.grant_id,
    status: row.status,
    statusReason: row.status_reason ?? undefined,
    scopes: row.scopes === '' ? [] : (row.scopes.split(' ') as Scope[]),
    issuedAt: new Date(row.issued_at),
    expiresAt: new Date(row.expires_at),
    refreshExpiresAt: refreshExpiresAtOf(row),
    refreshLease: refreshLeaseOf(row),
    version: row.version,
  };
}

function refreshExpiresAtOf(row: Pick<ConnectionRow, 'refresh_expires_at'>): Date | undefined {
  return row.refresh_expires_at === null ? undefined : new Date(row.refresh_expires_at);
}

function refreshLeaseOf(row: Pick<ConnectionRow, 'refresh_lease_owner' | 'refresh_lease_until'>): RefreshLease | undefined {
  return row.refresh_lease_owner === null || row.refresh_lease_until === null
    ? undefined
    : { owner: row.refresh_lease_owner, until: new Date(row.refresh_lease_until) };
}
