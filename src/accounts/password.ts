import { randomBytes } from 'node:crypto';
import { argon2id, hash, needsRehash, verify } from 'argon2';
import pLimit from 'p-limit';
import { isScryptHash, verifyScryptPassword } from './scrypt-password.js';

/**
 * OWASP's Argon2id profile with the least memory of those it rates as equal defences: 7 MiB, 5
 * passes, 1 lane (about 18 ms of CPU here). Its memory is what each hash of a burst of sign-ins adds
 * to the web process: the 9 MiB x 4 profile cost a little more CPU and took the web's peak nearer its
 * 150 MB budget, the 19 MiB x 2 one over it (docs/performance.md, Memory). Hashes of another cost are
 * replaced at the next sign-in.
 */
const ARGON2ID_COST = { memoryCost: 7_168, timeCost: 5, parallelism: 1 };

/**
 * Hashes run on libuv's thread pool: 4 threads, which also serve every file read (static assets)
 * and DNS lookup. Two hashes at a time leave two threads for that work, so a burst of sign-ins
 * waits here, in its own queue, instead of in front of a stylesheet.
 */
export const MAX_CONCURRENT_HASHES = 2;

export interface PasswordHasher {
  /** A self-describing Argon2id hash (`$argon2id$v=19$m=…,p=…,t=…$salt$hash`) with a random salt. */
  hash(password: string): Promise<string>;
  verify(password: string, stored: string): Promise<boolean>;
  /** Verifies against a throwaway hash, so that a wrong email takes as long as a wrong password. */
  verifyForUnknownUser(password: string): Promise<false>;
  /** True for a hash of an older scheme or cost, to be replaced once the password is known. */
  isOutdated(stored: string): boolean;
  /** Hashes being computed right now: never more than MAX_CONCURRENT_HASHES. */
  hashesRunning(): number;
}

/** One per process: the bound is on that process's thread pool. */
export function createPasswordHasher(): PasswordHasher {
  const limit = pLimit(MAX_CONCURRENT_HASHES);
  const isArgon2id = (stored: string) => stored.startsWith('$argon2id$');

  // NFKC, so that the same password typed on different keyboards (composed or decomposed) matches.
  const hashPassword = (password: string) => limit(() => hash(password.normalize('NFKC'), { type: argon2id, ...ARGON2ID_COST }));

  const verifyPassword = (password: string, stored: string): Promise<boolean> => {
    const normalized = password.normalize('NFKC');
    if (isArgon2id(stored)) return limit(() => verify(stored, normalized));
    if (isScryptHash(stored)) return limit(() => verifyScryptPassword(normalized, stored));
    return Promise.resolve(false);
  };

  let unknownUserHash: Promise<string> | undefined;

  return {
    hash: hashPassword,
    verify: verifyPassword,
    async verifyForUnknownUser(password) {
      unknownUserHash ??= hashPassword(randomBytes(16).toString('hex'));
      await verifyPassword(password, await unknownUserHash);
      return false;
    },
    isOutdated: (stored) => !isArgon2id(stored) || needsRehash(stored, ARGON2ID_COST),
    hashesRunning: () => limit.activeCount,
  };
}
