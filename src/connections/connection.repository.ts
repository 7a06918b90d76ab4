import type { Scope } from '../provider/scopes.js';
import type { TokenSet } from '../provider/token-set.js';
import type { Db } from '../db/database.js';
import type { ConnectionRow, ConnectionStatus } from './connection.table.js';
import type { TokenCipher } from './token-crypto.js';

/** A connection as the rest of the app sees it: status and grant, never the tokens. */
export interface Connection {
  userId: number;
  status: ConnectionStatus;
  scopes: Scope[];
  expiresAt: Date;
  refreshExpiresAt: Date | undefined;
  version: number;
}

export type IssuedTokens = TokenSet & { refreshToken: string };

/** Binds each sealed token to its row and field (see token-crypto.ts). */
export function tokenAssociatedData(userId: number, field: 'access_token' | 'refresh_token'): string {
  return `connection:${userId}:${field}`;
}

/**
 * Stores the grant from a completed Connect. Reconnecting replaces the previous tokens
 * and bumps the version, so any writer still holding the old version loses its swap.
 */
export async function saveConnection(
  db: Db,
  cipher: TokenCipher,
  userId: number,
  tokens: IssuedTokens,
  now: Date,
): Promise<void> {
  const access = cipher.seal(tokens.accessToken, tokenAssociatedData(userId, 'access_token'));
  const refresh = cipher.seal(tokens.refreshToken, tokenAssociatedData(userId, 'refresh_token'));
  const grant = {
    token_key_id: access.keyId,
    access_token_sealed: access.sealed,
    refresh_token_sealed: refresh.sealed,
    expires_at: tokens.expiresAt.toISOString(),
    refresh_expires_at: tokens.refreshExpiresAt?.toISOString() ?? null,
    scopes: tokens.scopes.join(' '),
    status: 'connected' as const,
    updated_at: now.toISOString(),
  };
  await db
    .insertInto('connections')
    .values({ user_id: userId, ...grant, version: 1, created_at: now.toISOString() })
    .onConflict((conflict) =>
      conflict.column('user_id').doUpdateSet((eb) => ({ ...grant, version: eb('connections.version', '+', 1) })),
    )
    .execute();
}

export async function findConnection(db: Db, userId: number): Promise<Connection | undefined> {
  const row = await db.selectFrom('connections').selectAll().where('user_id', '=', userId).executeTakeFirst();
  return row && toConnection(row);
}

export async function deleteConnection(db: Db, userId: number): Promise<void> {
  await db.deleteFrom('connections').where('user_id', '=', userId).execute();
}

function toConnection(row: ConnectionRow): Connection {
  return {
    userId: row.user_id,
    status: row.status,
    scopes: row.scopes === '' ? [] : (row.scopes.split(' ') as Scope[]),
    expiresAt: new Date(row.expires_at),
    refreshExpiresAt: row.refresh_expires_at === null ? undefined : new Date(row.refresh_expires_at),
    version: row.version,
  };
}
