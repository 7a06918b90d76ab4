import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export type SecretPrefix = 'sbx_at' | 'sbx_rt' | 'sbx_code';

/** A fresh credential; the prefix makes it easy to spot in a log that should not hold it. */
export function newSecret(prefix: SecretPrefix): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/** The sandbox stores and shows only this digest of a credential, never the credential itself. */
export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Compares two secrets in constant time (digests first, so lengths may differ). */
export function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}
