import { createHash } from 'node:crypto';
import { z } from 'zod';

/** RFC 7636 §4.1: code_verifier = 43*128 unreserved characters. */
export const codeVerifierSchema = z
  .string()
  .regex(/^[A-Za-z0-9\-._~]{43,128}$/, { error: 'must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636 §4.1)' });

/** RFC 7636 §4.2: an S256 challenge is BASE64URL(SHA256(verifier)), 32 bytes, so 43 characters unpadded. */
export const s256ChallengeSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

export function s256Challenge(codeVerifier: string): string {
  return createHash('sha256').update(codeVerifier, 'ascii').digest('base64url');
}
