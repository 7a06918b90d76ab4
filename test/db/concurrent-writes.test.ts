import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { saveConnection } from '../../src/connections/connection.repository.js';
import { createTokenCipher } from '../../src/connections/token-crypto.js';
import { total, writeConcurrently } from '../helpers/concurrent-writes.js';
import { useDatabaseWithOnePerson } from '../helpers/database.js';

/**
 * The writes that read before they write, run by several processes at once on the same rows: what
 * SQLite's one writer made safe must hold on Postgres, where transactions run side by side. (Each
 * kind tests its own such writes in its folder.)
 */

const WRITER = fileURLToPath(new URL('./fixtures/concurrent-writer.ts', import.meta.url));
const PROCESSES = 4;
const TOKEN_ENCRYPTION_KEY = randomBytes(32).toString('base64');

const person = useDatabaseWithOnePerson();

describe('several processes writing at once', () => {
  it('storing refreshed tokens: a write lands only on the row it read, so the version counts every write that landed', async () => {
    const { database, db, userId } = person();
    const cipher = createTokenCipher(Buffer.from(TOKEN_ENCRYPTION_KEY, 'base64'));
    const issuedAt = new Date();
    const tokens = { accessToken: 'at-0', refreshToken: 'rt-0', issuedAt, expiresAt: issuedAt, refreshExpiresAt: undefined, scopes: [] };
    await saveConnection(db, cipher, userId, tokens, issuedAt);

    const reports = await writeConcurrently(
      WRITER,
      database,
      { TOKEN_ENCRYPTION_KEY, USER_ID: String(userId) },
      Array.from({ length: PROCESSES }, () => ({ ROUNDS: '30' })),
    );

    expect(reports.flatMap((report) => report.errors)).toEqual([]);
    const landed = total(reports, 'landed');
    expect(landed).toBeGreaterThan(0);
    expect(landed + total(reports, 'refused')).toBe(PROCESSES * 30);
    const { version } = await db.selectFrom('connections').select('version').where('user_id', '=', userId).executeTakeFirstOrThrow();
    expect(version).toBe(1 + landed);
  }, 60_000);
});
