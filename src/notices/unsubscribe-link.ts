import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';

/** Where a connection mail's one-click unsubscribe link leads, on APP_BASE_URL. */
export const UNSUBSCRIBE_PATH = '/mail/unsubscribe';

/** Sets the links' key apart from every other use of the token keys it is derived from. */
const LINK_KEY_LABEL = 'athlete-sync one-click unsubscribe links';

const rowId = z
  .string()
  .regex(/^[1-9]\d{0,14}$/)
  .transform(Number);

/** An unsubscribe link's query: whose mails, the notice whose mail carried it, and an HMAC-SHA256 of both. */
const linkQuerySchema = z.object({
  person: rowId,
  notice: rowId,
  signature: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
});

/** What an unsubscribe link's query names: a person, or why it is no link this app made. */
export type LinkCheck = { ok: true; userId: number } | { ok: false; reason: 'malformed' | 'forged' };

export interface UnsubscribeLinks {
  /** The link in the mail of this notice, which turns off its person's connection mails without signing in. */
  linkFor(notice: { id: number; user_id: number }): string;
  check(query: unknown): LinkCheck;
}

/**
 * One-click unsubscribe links (RFC 8058), signed per person and incident (the notice): an HMAC under a
 * key derived (HKDF) from TOKEN_ENCRYPTION_KEY, which the worker that writes the mails and the web that
 * answers the links both have. Nothing is stored. A link signed under one of
 * TOKEN_ENCRYPTION_PREVIOUS_KEYS is still taken, so rotating the key leaves older mails' links working
 * until that key is dropped; then they are refused, and the account page still turns mails off.
 */
export function createUnsubscribeLinks(keys: { key: Buffer; previousKeys: Buffer[] }, appBaseUrl: string): UnsubscribeLinks {
  const signingKey = linkKey(keys.key);
  const acceptedKeys = [signingKey, ...keys.previousKeys.map(linkKey)];
  const signature = (key: Buffer, userId: number, noticeId: number) => createHmac('sha256', key).update(`${userId}:${noticeId}`).digest();

  return {
    linkFor(notice) {
      const query = new URLSearchParams({
        person: String(notice.user_id),
        notice: String(notice.id),
        signature: signature(signingKey, notice.user_id, notice.id).toString('base64url'),
      });
      return `${appBaseUrl}${UNSUBSCRIBE_PATH}?${query.toString()}`;
    },

    check(query) {
      const link = linkQuerySchema.safeParse(query);
      if (!link.success) return { ok: false, reason: 'malformed' };
      const given = Buffer.from(link.data.signature, 'base64url');
      // 43 base64url characters carry 258 bits: the last one's spare bits must be as this app writes
      // them, so a link has one spelling, not four.
      if (given.toString('base64url') !== link.data.signature) return { ok: false, reason: 'forged' };
      const { person, notice } = link.data;
      const signed = acceptedKeys.some((key) => timingSafeEqual(signature(key, person, notice), given));
      return signed ? { ok: true, userId: person } : { ok: false, reason: 'forged' };
    },
  };
}

function linkKey(tokenKey: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', tokenKey, Buffer.alloc(0), LINK_KEY_LABEL, 32));
}
