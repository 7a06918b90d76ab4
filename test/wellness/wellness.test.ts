import { describe, expect, it } from 'vitest';
import { AccountGoneError, insertUser } from '../../src/accounts/user.repository.js';
import { createWellness } from '../../src/wellness/wellness.js';
import { useMigratedDatabase } from '../helpers/database.js';

const db = useMigratedDatabase();

describe('a wellness day written for an account deleted while the request ran', () => {
  it('is refused as a request without a signed-in person (401), and nothing is written', async () => {
    const user = (await insertUser(db(), {
      email: 'gone@example.com',
      password_hash: 'x',
      timezone: 'UTC',
      created_at: new Date().toISOString(),
    }))!;
    await db().deleteFrom('users').where('id', '=', user.id).execute();

    const writing = createWellness({ db: db(), clock: () => new Date() }).put(user, '2026-11-01', { hrv: 50 });

    await expect(writing).rejects.toBeInstanceOf(AccountGoneError);
    await expect(writing).rejects.toMatchObject({ status: 401 });
    expect(await db().selectFrom('wellness_days').select('date').where('user_id', '=', user.id).execute()).toEqual([]);
  });
});
