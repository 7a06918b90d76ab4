import { setImmediate as nextTurn } from 'node:timers/promises';
import { argon2id, hash } from 'argon2';
import { describe, expect, it } from 'vitest';
import { createPasswordHasher, MAX_CONCURRENT_HASHES } from '../../src/accounts/password.js';
import { FIRST_RELEASE_SCRYPT_HASH } from '../helpers/first-release-hash.js';

describe('password hashing', () => {
  const passwords = createPasswordHasher();

  it('stores Argon2id with an OWASP profile (7 MiB, 5 passes, 1 lane), and verifies the right password only', async () => {
    const stored = await passwords.hash('correct horse battery');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=7168,p=1,t=5\$/);
    expect(stored).not.toContain('correct horse');
    expect(await passwords.verify('correct horse battery', stored)).toBe(true);
    expect(await passwords.verify('correct horse batterY', stored)).toBe(false);
    expect(passwords.isOutdated(stored)).toBe(false);
  });

  it('salts: the same password hashes differently each time', async () => {
    expect(await passwords.hash('same password!')).not.toBe(await passwords.hash('same password!'));
  });

  it('refuses a stored value of another scheme', async () => {
    expect(await passwords.verify('x', 'plain$x')).toBe(false);
  });

  it("still verifies the first release's scrypt hashes, and calls them outdated", async () => {
    expect(await passwords.verify('a long password', FIRST_RELEASE_SCRYPT_HASH)).toBe(true);
    expect(await passwords.verify('a long passworD', FIRST_RELEASE_SCRYPT_HASH)).toBe(false);
    expect(passwords.isOutdated(FIRST_RELEASE_SCRYPT_HASH)).toBe(true);
  });

  it('calls an Argon2id hash of another cost outdated', async () => {
    const cheaper = await hash('a long password', { type: argon2id, memoryCost: 4096, timeCost: 3, parallelism: 1 });
    expect(passwords.isOutdated(cheaper)).toBe(true);
  });

  it('answers false for an unknown user after doing the same work', async () => {
    expect(await passwords.verifyForUnknownUser('anything')).toBe(false);
  });

  it(`never computes more than ${MAX_CONCURRENT_HASHES} hashes at once, leaving libuv threads for files and DNS`, async () => {
    const hasher = createPasswordHasher();
    const stored = await hasher.hash('a long password');
    let settled = false;
    const all = Promise.all(Array.from({ length: 8 }, () => hasher.verify('a long password', stored))).finally(() => {
      settled = true;
    });
    const observed: number[] = [];
    while (!settled) {
      observed.push(hasher.hashesRunning());
      await nextTurn();
    }
    expect(await all).toEqual(Array(8).fill(true));
    expect(Math.max(...observed)).toBe(MAX_CONCURRENT_HASHES);
  });
});
