import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEntry } from '../../src/sync/send-entry.js';
import { connectedUser } from '../helpers/flows.js';
import { workload, writeDay } from '../helpers/kinds.js';
import { syncStatus } from '../helpers/sync-status.js';
import type { CookieClient } from '../helpers/http-client.js';
import { run } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let client: CookieClient;
let email: string;

function resync(...args: string[]) {
  return run('npm', ['run', '--silent', 'resync', '--', ...args], { PATH: process.env.PATH, HOME: process.env.HOME, ...stack.env });
}

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
  const user = await connectedUser(stack);
  client = user.client;
  email = ((await (await client.get('/api/me')).json()) as { email: string }).email;
  const deps = stack.sendDependencies();
  for (const date of ['2026-06-01', '2026-06-03']) {
    await writeDay(client, date);
    await sendEntry(deps, { userId: user.userId, kind: workload.syncKind, subject: date });
  }
});
afterAll(async () => {
  await stack.close();
});

describe('npm run resync', () => {
  it('marks the user’s days in the range dirty again, and only days the app has touched', async () => {
    expect((await syncStatus(client, '2026-06-01', '2026-06-30')).map((day) => day.status)).toEqual(['synced', 'synced']);
    const result = await resync('--user', email.toUpperCase(), '--from', '2026-06-01', '--to', '2026-06-02');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(
      `Marked 1 day(s) of ${email} for sync (2026-06-01), as history: running workers start sending them within a sweep interval.`,
    );
    expect(await stack.db.selectFrom('histories').select('total').execute()).toEqual([{ total: 1 }]);
    expect((await syncStatus(client, '2026-06-01', '2026-06-30')).map((day) => [day.date, day.status])).toEqual([
      ['2026-06-01', 'pending'],
      ['2026-06-03', 'synced'],
    ]);
  });

  it('says so in one line for an unknown user', async () => {
    const result = await resync('--user', 'nobody@example.com', '--from', '2026-06-01', '--to', '2026-06-02');
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('No user with the email nobody@example.com.');
  });

  it('shows the usage for missing or malformed arguments', async () => {
    const result = await resync('--user', email, '--from', '2026-06-31');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Usage: npm run resync -- --user <email> --from <YYYY-MM-DD> --to <YYYY-MM-DD>');
  });

  it('refuses a date outside 1900–2100, naming the argument', async () => {
    const result = await resync('--user', email, '--from', '1899-12-31', '--to', '2026-06-02');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('--from must be a date as YYYY-MM-DD from 1900-01-01 to 2100-12-31');
  });
});
