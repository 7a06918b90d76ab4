import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { findConnection } from '../../src/connections/connection.repository.js';
import { tokenKeyId } from '../../src/connections/token-crypto.js';
import { freePort } from '../../src/dev/free-port.js';
import { startMailCatcher, type MailCatcher } from '../../src/dev/mail-catcher.js';
import { connectedUser } from '../helpers/flows.js';
import { serviceDay, writeDay } from '../helpers/kinds.js';
import { run, type Running } from '../helpers/processes.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { startWorkerEntryPoint } from '../helpers/worker-process.js';

/** Every token and code the sandbox issues starts with one of these. */
const CANARY = /sbx_(at|rt|code)_/;
const ATHLETE = 'Ana';
/** How often a worker mails the notices due (MAIL_INTERVAL_MS): a connection marked for reconnecting is mailed within this. */
const MAIL_INTERVAL_MS = 200;

let stack: Stack;
let catcher: MailCatcher;
const workers: Running[] = [];

afterEach(async () => {
  const stopped = workers.splice(0);
  await Promise.all(stopped.map((worker) => worker.stop('SIGKILL')));
  for (const worker of stopped) expect(worker.output()).not.toMatch(CANARY);
  await stack.close();
  await catcher.close();
});

/** The two token key settings, as the operator sets them on every process and on the reseal. */
function tokenKeys(current: Buffer, previous: Buffer[] = []): Record<string, string> {
  return {
    TOKEN_ENCRYPTION_KEY: current.toString('base64'),
    TOKEN_ENCRYPTION_PREVIOUS_KEYS: previous.map((key) => key.toString('base64')).join(','),
  };
}

async function startWorker(env: Record<string, string>): Promise<Running> {
  const worker = await startWorkerEntryPoint(stack, { MAIL_INTERVAL_MS: String(MAIL_INTERVAL_MS), SYNC_QUIET_MS: '100', ...env });
  workers.push(worker);
  return worker;
}

/** Stops a worker as a rolling restart does (SIGTERM: it finishes its running turns first). */
async function stopWorker(worker: Running): Promise<void> {
  expect(await worker.stop('SIGTERM')).toBe(0);
}

async function reseal(keys: Record<string, string>): Promise<string> {
  const result = await run('npm', ['run', '--silent', 'reseal'], {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    DATABASE_URL: stack.env.DATABASE_URL,
    ...keys,
  });
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return result.stdout;
}

async function dayReachesTheService(date: string): Promise<void> {
  await eventually(`the day ${date} to reach the service`, () => serviceDay(stack, ATHLETE, date));
}

async function metricsOf(url: string): Promise<string> {
  return (await fetch(url)).text();
}

describe('rotating the token key while a worker still runs on the old key', () => {
  it('the old-key worker leaves the resealed grant alone and nobody is mailed; restarted on the new key, it sends the waiting day', async () => {
    catcher = await startMailCatcher();
    stack = await startStack({
      sandbox: { autoApprove: ATHLETE },
      env: { SMTP_URL: catcher.url, MAIL_FROM: 'athlete-sync <no-reply@example.com>' },
    });
    const oldKey = Buffer.from(stack.env.TOKEN_ENCRYPTION_KEY!, 'base64');
    const newKey = randomBytes(32);
    const { client, userId } = await connectedUser(stack);
    const metricsPort = await freePort();
    const oldKeyWorker = await startWorker({ ...tokenKeys(oldKey), METRICS_PORT: String(metricsPort) });
    await writeDay(client, '2026-03-10');
    await dayReachesTheService('2026-03-10');

    // Step 2 run early: the reseal with the new settings, while the worker still runs on the old key only.
    expect(await reseal(tokenKeys(newKey, [oldKey]))).toMatch(/^Resealed 1, /);
    await writeDay(client, '2026-03-11');
    const newKeyId = tokenKeyId(newKey);
    // The turn that met the resealed tokens, ended.
    await oldKeyWorker.waitForOutput(new RegExp(`"tokenKeyId":"${newKeyId}"[^]*"msg":"turn taken"`));
    expect(await findConnection(stack.db, userId)).toMatchObject({ status: 'connected', statusReason: undefined });
    expect(await metricsOf(`http://127.0.0.1:${metricsPort}/metrics`)).toMatch(
      new RegExp(`^athlete_sync_token_key_missing_total\\{key_id="${newKeyId}"\\} [1-9]`, 'm'),
    );

    // Step 1 reaches the worker: restarted with the new key, the old one as previous.
    await stopWorker(oldKeyWorker);
    const rotatedWorker = await startWorker(tokenKeys(newKey, [oldKey]));
    await dayReachesTheService('2026-03-11');

    // Step 2 in its place, every process on the new key; then step 3, the old key dropped.
    expect(await reseal(tokenKeys(newKey, [oldKey]))).toBe(
      'Resealed 0, already current 1, key not configured 0, unreadable 0: every stored token is sealed with the current key.\n',
    );
    await stopWorker(rotatedWorker);
    await startWorker(tokenKeys(newKey));
    await writeDay(client, '2026-03-12');
    await dayReachesTheService('2026-03-12');

    expect(await findConnection(stack.db, userId)).toMatchObject({ status: 'connected', statusReason: undefined });
    expect(await stack.db.selectFrom('connection_notices').selectAll().execute()).toEqual([]);
    // The one mail is the sign-up's, which confirms the address: none about the connection.
    expect(catcher.mails.filter((mail) => mail.subject !== 'Confirm your email address for athlete-sync')).toEqual([]);
  }, 120_000);
});
