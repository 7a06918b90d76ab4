import { createHash, randomBytes } from 'node:crypto';
import type { Transaction } from 'kysely';
import { z } from 'zod';
import type { Database, Db } from '../db/database.js';
import type { EmailLink, LinkPurpose } from './email-link.table.js';

/** A link's secret: 32 random bytes, as 43 base64url characters; nothing to guess in a lifetime. */
const SECRET_BYTES = 32;

/** The secret as a link carries it; anything else is no link of this app. */
export const linkSecretSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

/** Why a link does nothing: no such link (cut short, altered, or replaced by a newer one), used already, or past its lifetime. */
export type LinkRefusal = 'invalid' | 'used' | 'expired';

export type LinkState = { ok: true; link: EmailLink } | { ok: false; reason: LinkRefusal };

function sha256(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/**
 * A new link for the person, valid for `lifetimeMs`, and its secret (to be mailed, never stored):
 * their earlier links of the same purpose stop working, so only the newest mail's link does.
 */
export async function issueLink(
  db: Db,
  link: { userId: number; purpose: LinkPurpose; email: string; lifetimeMs: number },
  now: Date,
): Promise<string> {
  const secret = randomBytes(SECRET_BYTES).toString('base64url');
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('email_links').where('user_id', '=', link.userId).where('purpose', '=', link.purpose).execute();
    await trx
      .insertInto('email_links')
      .values({
        user_id: link.userId,
        token_sha256: sha256(secret),
        purpose: link.purpose,
        email: link.email,
        created_at: now.toISOString(),
        expires_at: new Date(now.getTime() + link.lifetimeMs).toISOString(),
      })
      .execute();
  });
  return secret;
}

/** What the link with this secret would do now, without using it. */
export async function linkState(
  db: Db | Transaction<Database>,
  secret: unknown,
  purposes: readonly LinkPurpose[],
  now: Date,
): Promise<LinkState> {
  const parsed = linkSecretSchema.safeParse(secret);
  if (!parsed.success) return { ok: false, reason: 'invalid' };
  const link = await db.selectFrom('email_links').selectAll().where('token_sha256', '=', sha256(parsed.data)).executeTakeFirst();
  if (!link || !purposes.includes(link.purpose)) return { ok: false, reason: 'invalid' };
  if (link.used_at !== null) return { ok: false, reason: 'used' };
  if (link.expires_at <= now.toISOString()) return { ok: false, reason: 'expired' };
  return { ok: true, link };
}

/**
 * Uses the link, in the transaction of what it does: of two requests with one link, exactly one
 * gets it (compare-and-swap on `used_at`); the other is told it was used.
 */
export async function useLink(
  trx: Transaction<Database>,
  secret: unknown,
  purposes: readonly LinkPurpose[],
  now: Date,
): Promise<LinkState> {
  const state = await linkState(trx, secret, purposes, now);
  if (!state.ok) return state;
  const used = await trx
    .updateTable('email_links')
    .set({ used_at: now.toISOString() })
    .where('id', '=', state.link.id)
    .where('used_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  return used ? { ok: true, link: used } : { ok: false, reason: 'used' };
}
