import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UnknownTokenKeyError, createTokenCipher, tokenKeyId } from '../../src/connections/token-crypto.js';

const key = randomBytes(32);

describe('token encryption at rest', () => {
  it('opens what it sealed, and the sealed text does not contain the token', () => {
    const cipher = createTokenCipher(key);
    const sealed = cipher.seal('sbx_at_secret-value', 'connection:1:access_token');
    expect(sealed.keyId).toBe(tokenKeyId(key));
    expect(Buffer.from(sealed.sealed, 'base64').toString('latin1')).not.toContain('secret-value');
    expect(sealed.sealed).not.toContain('secret-value');
    expect(cipher.open(sealed, 'connection:1:access_token')).toBe('sbx_at_secret-value');
  });

  it('seals the same token differently each time (random IV)', () => {
    const cipher = createTokenCipher(key);
    expect(cipher.seal('t', 'a').sealed).not.toBe(cipher.seal('t', 'a').sealed);
  });

  it('refuses a token moved to another row or field (associated data)', () => {
    const cipher = createTokenCipher(key);
    const sealed = cipher.seal('token', 'connection:1:access_token');
    expect(cipher.open(sealed, 'connection:1:access_token')).toBe('token');
    expect(() => cipher.open(sealed, 'connection:2:access_token')).toThrow();
    expect(() => cipher.open(sealed, 'connection:1:refresh_token')).toThrow();
  });

  it('refuses a tampered ciphertext', () => {
    const cipher = createTokenCipher(key);
    const sealed = cipher.seal('token', 'aad');
    expect(cipher.open(sealed, 'aad')).toBe('token');
    const bytes = Buffer.from(sealed.sealed, 'base64');
    bytes[bytes.length - 1]! ^= 1;
    expect(() => cipher.open({ ...sealed, sealed: bytes.toString('base64') }, 'aad')).toThrow();
  });

  it('opens tokens sealed with a previous key after rotation, and seals new ones with the current key', () => {
    const oldKey = randomBytes(32);
    const sealedBefore = createTokenCipher(oldKey).seal('token', 'aad');
    const rotated = createTokenCipher(key, [oldKey]);
    expect(rotated.open(sealedBefore, 'aad')).toBe('token');
    expect(rotated.seal('token', 'aad').keyId).toBe(tokenKeyId(key));
  });

  it("names a key by the first 16 hex digits of the key's SHA-256", () => {
    expect(tokenKeyId(key)).toBe(createHash('sha256').update(key).digest('hex').slice(0, 16));
    expect(tokenKeyId(key)).toMatch(/^[0-9a-f]{16}$/);
  });

  it('says which key is missing when a token was sealed with a key no longer configured', () => {
    const sealed = createTokenCipher(randomBytes(32)).seal('token', 'aad');
    expect(() => createTokenCipher(key).open(sealed, 'aad')).toThrow(UnknownTokenKeyError);
  });
});
