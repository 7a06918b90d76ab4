import { describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword, verifyPasswordOfUnknownUser } from '../../src/accounts/password.js';

describe('password hashing', () => {
  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse battery');
    expect(stored).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(stored).not.toContain('correct horse');
    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
  });

  it('salts: the same password hashes differently each time', async () => {
    expect(await hashPassword('same password!')).not.toBe(await hashPassword('same password!'));
  });

  it('refuses a stored value of another scheme', async () => {
    expect(await verifyPassword('x', 'plain$x')).toBe(false);
  });

  it('answers false for an unknown user after doing the same work', async () => {
    expect(await verifyPasswordOfUnknownUser('anything')).toBe(false);
  });
});
