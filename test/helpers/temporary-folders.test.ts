import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKind } from './database.js';
import { removeTemporaryFolders, temporaryFolder } from './temporary-folders.js';

describe('temporary folders of the tests', () => {
  it('are removed when the test file ends, with what is in them', async () => {
    const folder = temporaryFolder('athlete-sync-helper-');
    expect(existsSync(folder)).toBe(true);
    await removeTemporaryFolders();
    expect(existsSync(folder)).toBe(false);
  });

  it.runIf(testDatabaseKind() === 'sqlite')('hold each SQLite test database', async () => {
    const database = await createTestDatabase();
    if (database.kind !== 'sqlite') throw new Error('a SQLite database was expected');
    expect(existsSync(dirname(database.path))).toBe(true);
    await removeTemporaryFolders();
    expect(existsSync(dirname(database.path))).toBe(false);
  });
});
