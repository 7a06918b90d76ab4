import { parseArgs } from 'node:util';
import { z } from 'zod';
import { emailSchema } from './accounts/account.schemas.js';
import { findUserByEmail } from './accounts/user.repository.js';
import { loadDatabaseConfig, readEnvironment } from './config.js';
import { calendarDateSchema } from './dates/supported-dates.js';
import { createDb } from './db/database.js';
import { runEntryPoint } from './entry-point.js';
import { StartupError } from './errors.js';
import { markDaysForResync } from './sync/resync.js';

const USAGE = 'Usage: npm run resync -- --user <email> --from <YYYY-MM-DD> --to <YYYY-MM-DD>';

const argumentsSchema = z
  .object({ user: emailSchema, from: calendarDateSchema, to: calendarDateSchema })
  .refine(({ from, to }) => from <= to, { error: 'must not be before --from', path: ['to'] });

function readArguments(): unknown {
  try {
    return parseArgs({ options: { user: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } } }).values;
  } catch (error) {
    throw new StartupError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
}

/** `npm run resync`: marks a user's days dirty again, as history; running workers send them in the person's turns. */
runEntryPoint(async () => {
  const parsed = argumentsSchema.safeParse(readArguments());
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `--${issue.path.join('.')} ${issue.message}`);
    throw new StartupError(`${problems.join('; ')}\n${USAGE}`);
  }
  const { user: email, from, to } = parsed.data;

  const db = createDb(loadDatabaseConfig(readEnvironment()));
  try {
    const user = await findUserByEmail(db, email);
    if (!user) throw new StartupError(`No user with the email ${email}.`);
    const dates = await markDaysForResync(db, user.id, from, to, new Date());
    console.log(
      dates.length === 0
        ? `Nothing to resync: ${email} has no days between ${from} and ${to}.`
        : `Marked ${dates.length} day(s) of ${email} for sync (${dates.join(', ')}), as history: running workers start sending them within a sweep interval.`,
    );
  } finally {
    await db.destroy();
  }
});
