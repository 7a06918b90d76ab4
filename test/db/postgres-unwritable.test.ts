import { describe, expect, it } from 'vitest';
import { DatabaseUnwritableError } from '../../src/db/database-unwritable-error.js';
import { refuseInserts, testDatabaseKind, useMigratedDatabase } from '../helpers/database.js';

/**
 * A Postgres that cannot write until an operator acts (a full or failing disk, read-only mode),
 * reported as SQLite's read-only or full file is: test/web/busy-database.test.ts answers it 503.
 */
describe.runIf(testDatabaseKind() === 'postgres')('a Postgres that cannot write', () => {
  const db = useMigratedDatabase();
  const newUser = (email: string) => db().insertInto('users').values({ email, password_hash: 'x', timezone: 'UTC', created_at: '' });

  it.each(['disk_full', 'io_error', 'read_only_sql_transaction'])(
    'fails a write as DatabaseUnwritableError on %s, and writes again once it passes',
    async (condition) => {
      const refusal = await refuseInserts(db(), 'users', condition);
      await expect(newUser(`${condition}@example.com`).execute()).rejects.toBeInstanceOf(DatabaseUnwritableError);
      await refusal.allow();
      await newUser(`${condition}@example.com`).execute();
      expect(await db().selectFrom('users').select('email').where('email', '=', `${condition}@example.com`).execute()).toHaveLength(1);
    },
  );
});
