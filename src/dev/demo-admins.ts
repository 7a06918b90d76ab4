import { randomBytes } from 'node:crypto';
import { createPasswordHasher } from '../accounts/password.js';
import { insertUser } from '../accounts/user.repository.js';
import type { Config } from '../config.js';
import { createDb } from '../db/database.js';

export interface AdminAccount {
  email: string;
  password: string;
}

/**
 * The demo starts empty, and nobody may sign up with an address in ADMIN_EMAILS (the address alone
 * opens the queue dashboard): so the demo makes each listed account itself, with a new random
 * password to print, its address taken as confirmed (it is the operator's own, set in the environment).
 */
export async function createAdminAccounts(config: Config): Promise<AdminAccount[]> {
  if (config.admin.emails.length === 0) return [];
  const db = createDb(config.database);
  const hasher = createPasswordHasher();
  try {
    return await Promise.all(
      config.admin.emails.map(async (email) => {
        const password = randomBytes(12).toString('base64url');
        const now = new Date().toISOString();
        await insertUser(db, {
          email,
          password_hash: await hasher.hash(password),
          timezone: 'UTC',
          created_at: now,
          email_verified_at: now,
        });
        return { email, password };
      }),
    );
  } finally {
    await db.destroy();
  }
}
