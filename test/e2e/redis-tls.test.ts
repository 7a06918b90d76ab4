import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { makeServerCertificates, type TestCertificates } from '../helpers/certificates.js';
import { connectedUser } from '../helpers/flows.js';
import { bodyOf, CookieClient, type Me } from '../helpers/http-client.js';
import { serviceDay, workload, writeDay } from '../helpers/kinds.js';
import { eachInOrder, run, type Running } from '../helpers/processes.js';
import { startRedisProcess, type RedisProcess } from '../helpers/redis-process.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { startWebEntryPoint, type WebProcess } from '../helpers/web-process.js';
import { appProcessEnvironment, startWorkerProcess } from '../helpers/worker-process.js';

/**
 * One Redis server that takes TLS and a password, as managed Redis services offer it, named by a
 * `rediss://` REDIS_URL: `npm start` and `npm run worker` in processes of their own, trusting the
 * test's certificate authority as Node does any (NODE_EXTRA_CA_CERTS). The test's own app reaches
 * the same server on its plain port, to set up a connected person.
 */

const PASSWORD = 'redis-secret';

let certificates: TestCertificates;
let redis: RedisProcess;
let tlsPort: number;
let stack: Stack;
let web: WebProcess;
let worker: Running;

/** What the processes are given: the server's TLS port, the password, and trust in the test's authority. */
function overTls(password = PASSWORD): Record<string, string> {
  return { REDIS_URL: `rediss://:${password}@127.0.0.1:${tlsPort}`, NODE_EXTRA_CA_CERTS: certificates.ca };
}

beforeAll(async () => {
  certificates = makeServerCertificates();
  tlsPort = await freePort();
  redis = await startRedisProcess({
    password: PASSWORD,
    config: [
      `tls-port ${tlsPort}`,
      `tls-cert-file ${certificates.cert}`,
      `tls-key-file ${certificates.key}`,
      `tls-ca-cert-file ${certificates.ca}`,
      'tls-auth-clients no',
    ],
  });
  stack = await startStack({
    sandbox: { autoApprove: 'Ana' },
    redis: { REDIS_URL: `redis://:${PASSWORD}@127.0.0.1:${redis.port}` },
    env: { SYNC_QUIET_MS: '300' },
  });
  [web, worker] = await Promise.all([startWebEntryPoint(stack, overTls()), startWorkerProcess(stack, overTls())]);
}, 60_000);
afterAll(() =>
  eachInOrder(
    () => Promise.all([web?.running.stop('SIGTERM'), worker?.stop('SIGTERM')]),
    () => stack?.close(),
    () => redis?.stop(),
  ),
);

describe('the app on one Redis server over TLS with a password (rediss://)', () => {
  it(`keeps a person signed in on the web process and sends their ${workload.name} from the worker`, async () => {
    const { client } = await connectedUser(stack);
    const { email } = await bodyOf<Me>(await client.get('/api/me'));
    const person = new CookieClient(web.url);
    expect((await person.postJson('/api/login', { email, password: 'a long password' })).status).toBe(200);
    expect(await bodyOf<Me>(await person.get('/api/me'))).toMatchObject({ email, connection: { status: 'connected' } });

    await writeDay(person, '2026-03-10');
    await eventually('the day at the service', () => serviceDay(stack, 'Ana', '2026-03-10'));
    expect(await (await fetch(`${web.url}/readyz`)).json()).toEqual({ ok: true });
  }, 30_000);

  it.each([
    ['a wrong password', () => overTls('wrong'), 'WRONGPASS'],
    ['a server certificate it does not trust', () => ({ ...overTls(), NODE_EXTRA_CA_CERTS: '' }), 'self-signed certificate'],
  ])('is refused at start with one line naming Redis and why, web and worker alike, given %s', async (_case, env, why) => {
    const refused = { ...appProcessEnvironment(stack, env()), STARTUP_TIMEOUT_S: '2' };
    const starts = await Promise.all([
      run('npm', ['run', '--silent', 'start'], { ...refused, PORT: String(await freePort()) }),
      run('npm', ['run', '--silent', 'worker'], refused),
    ]);
    for (const result of starts) {
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toMatch(
        new RegExp(`^Cannot reach Redis at rediss://127\\.0\\.0\\.1:${tlsPort} within 2 s \\(STARTUP_TIMEOUT_S\\): ${why}[^\\n]*$`),
      );
    }
  });
});
