import { describe, expect, it } from 'vitest';
import {
  AccountGoneError,
  changeConnectionMail,
  findUserById,
  insertUser,
  updateConnectionMail,
  updateTimezone,
} from '../../src/accounts/user.repository.js';
import { useMigratedDatabase } from '../helpers/database.js';

const db = useMigratedDatabase();

async function newUser(email: string): Promise<number> {
  const user = await insertUser(db(), {
    email,
    password_hash: 'not a hash',
    timezone: 'Europe/Vienna',
    created_at: new Date().toISOString(),
  });
  return user!.id;
}

describe("a person's own change to their account, deleted while the request ran", () => {
  it('saves nothing and says the account is gone, so the form is not answered as saved', async () => {
    const gone = 2_000_000_000;
    await expect(updateTimezone(db(), gone, 'Asia/Tokyo')).rejects.toBeInstanceOf(AccountGoneError);
    await expect(changeConnectionMail(db(), gone, false)).rejects.toBeInstanceOf(AccountGoneError);
  });

  it('is saved while the account is there', async () => {
    const id = await newUser('still-here@example.com');
    await updateTimezone(db(), id, 'Asia/Tokyo');
    await changeConnectionMail(db(), id, false);
    expect(await findUserById(db(), id)).toMatchObject({ timezone: 'Asia/Tokyo', connection_mail: 0 });
  });
});

describe('turning the connection mails off through an unsubscribe link', () => {
  it('answers whether the account was there to take it, never throwing for one deleted since the mail', async () => {
    expect(await updateConnectionMail(db(), 2_000_000_001, false)).toBe(false);
    expect(await updateConnectionMail(db(), await newUser('link@example.com'), false)).toBe(true);
  });
});
