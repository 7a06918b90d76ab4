import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Passwords are stored as scrypt hashes with a random salt, in one self-describing string
 * (`scrypt$N$r$p$salt$hash`) so the cost can be raised later without losing old hashes.
 * The cost follows OWASP's scrypt guidance (N=2^17, r=8, p=1).
 */
const COST = { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 };
const KEY_BYTES = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), {
    N: Number(N),
    r: Number(r),
    p: Number(p),
    maxmem: COST.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

let unknownUserHash: Promise<string> | undefined;

/**
 * Verifies against a throwaway hash when the email is unknown, so that a wrong email and a
 * wrong password take as long and cannot be told apart by timing.
 */
export async function verifyPasswordOfUnknownUser(password: string): Promise<false> {
  unknownUserHash ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(password, await unknownUserHash);
  return false;
}
