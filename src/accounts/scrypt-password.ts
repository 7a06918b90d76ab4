import { scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords of the first release: scrypt hashes stored as `scrypt$N$r$p$salt$hash`. They still
 * verify, and are replaced by Argon2id at the owner's next successful sign-in (password.ts).
 */
const SCHEME = 'scrypt';
const MAX_MEMORY = 256 * 1024 * 1024;

export function isScryptHash(stored: string): boolean {
  return stored.startsWith(`${SCHEME}$`);
}

export async function verifyScryptPassword(password: string, stored: string): Promise<boolean> {
  const [, N, r, p, salt, key] = stored.split('$');
  if (!salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const options = { N: Number(N), r: Number(r), p: Number(p), maxmem: MAX_MEMORY };
  const actual = await derive(password, Buffer.from(salt, 'base64'), expected.length, options);
  return timingSafeEqual(actual, expected);
}

function derive(password: string, salt: Buffer, length: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => scrypt(password, salt, length, options, (error, key) => (error ? reject(error) : resolve(key))));
}
