import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * OAuth tokens are encrypted at rest with AES-256-GCM. Each sealed value records nothing but
 * iv, tag and ciphertext; the id of the key that sealed it is stored beside it, so a new key
 * can be introduced while rows sealed with an older one still open. The associated data binds
 * a ciphertext to its row and field: a token copied to another user's row does not decrypt.
 */

const IV_BYTES = 12;
const TAG_BYTES = 16;

export interface SealedToken {
  keyId: string;
  sealed: string;
}

export interface TokenCipher {
  /** The key `seal` uses; tokens under any other key are resealed by `npm run reseal`. */
  readonly currentKeyId: string;
  /** Whether tokens sealed under this key id can be opened: its key is configured. */
  hasKey(keyId: string): boolean;
  seal(plaintext: string, associatedData: string): SealedToken;
  open(token: SealedToken, associatedData: string): string;
}

export class UnknownTokenKeyError extends Error {
  override name = 'UnknownTokenKeyError';
}

const KEY_ID_DIGITS = 16;

/** A key's id is derived from the key itself, so it needs no separate setting. */
export function tokenKeyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, KEY_ID_DIGITS);
}

/** A key id as the log, the metrics and `npm run reseal` print it. */
export const tokenKeyIdSchema = z
  .string()
  .regex(new RegExp(`^[0-9a-f]{${KEY_ID_DIGITS}}$`), `must be a key id: ${KEY_ID_DIGITS} hex digits`);

/**
 * How many opened tokens a process keeps. A worker opens the same user's tokens for every day it
 * sends; opening is a pure function of key, associated data and sealed text, so a kept
 * answer is exactly what opening again would give, and a rotated token, sealed anew, is opened anew.
 */
const OPENED_TOKENS_KEPT = 1000;

export function createTokenCipher(currentKey: Buffer, previousKeys: Buffer[] = []): TokenCipher {
  const currentKeyId = tokenKeyId(currentKey);
  const keysById = new Map([currentKey, ...previousKeys].map((key) => [tokenKeyId(key), key]));
  const opened = new Map<string, string>();

  function openAnew({ keyId, sealed }: SealedToken, associatedData: string): string {
    const key = keysById.get(keyId);
    if (!key) throw new UnknownTokenKeyError(`no token encryption key with id ${keyId} is configured`);
    const bytes = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES))
      .setAAD(Buffer.from(associatedData))
      .setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
  }

  return {
    currentKeyId,
    hasKey: (keyId) => keysById.has(keyId),
    seal(plaintext, associatedData) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', currentKey, iv).setAAD(Buffer.from(associatedData));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const sealed = Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
      return { keyId: currentKeyId, sealed };
    },
    open(token, associatedData) {
      const known = JSON.stringify([token.keyId, associatedData, token.sealed]);
      let plaintext = opened.get(known);
      if (plaintext === undefined) {
        plaintext = openAnew(token, associatedData);
        opened.set(known, plaintext);
        if (opened.size > OPENED_TOKENS_KEPT) opened.delete(opened.keys().next().value!);
      }
      return plaintext;
    },
  };
}
