import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { start } from '../helpers/processes.js';
import { testRedisPrefix } from '../helpers/redis-keys.js';

describe('npm run demo', () => {
  it('starts sandbox, web and worker, shows their logs as readable lines, prints the URL to open, and stops them all on Ctrl+C', async () => {
    const webPort = await freePort();
    const sandboxPort = await freePort();
    const mailPagePort = await freePort();
    const demo = start('npm', ['run', 'demo'], {
      MAIL_PAGE_PORT: String(mailPagePort),
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(webPort),
      SANDBOX_PORT: String(sandboxPort),
      DATABASE_URL: `sqlite:${join(mkdtempSync(join(tmpdir(), 'athlete-sync-demo-')), 'demo.db')}`,
      REDIS_URL: inject('redisUrl'),
      REDIS_PREFIX: testRedisPrefix(),
    });
    try {
      const [, url] = await demo.waitForOutput(/Open (http:\/\/localhost:\d+)/);
      expect(url).toBe(`http://localhost:${webPort}`);
      expect(demo.output()).toMatch(/\[worker 1\].*worker ready/);
      // Readable lines, not JSON, with the address the web listens on.
      expect(demo.output()).toMatch(new RegExp(`^\\[web\\] \\[\\d\\d:\\d\\d:\\d\\d\\] INFO: web listening on http://127\\.0\\.0\\.1:${webPort}`, 'm'));
      expect(demo.output()).not.toMatch(/^\[(web|worker 1)\] \{/m);

      const signIn = await fetch(`http://127.0.0.1:${webPort}/`, { redirect: 'manual' });
      expect(signIn.status).toBe(303);
      expect(signIn.headers.get('location')).toBe('/login');
      const sandbox = await fetch(`http://127.0.0.1:${sandboxPort}/_sandbox/state`);
      expect(sandbox.status).toBe(200);
      expect(demo.output()).toContain(`Mails the app sent: http://127.0.0.1:${mailPagePort}`);
      expect(await (await fetch(`http://127.0.0.1:${mailPagePort}/`)).text()).toContain('Mails sent by the demo');
    } finally {
      await demo.stop('SIGINT');
    }
    expect(demo.output()).not.toContain('stopping the demo');
    await expect(fetch(`http://127.0.0.1:${webPort}/healthz`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${sandboxPort}/healthz`)).rejects.toThrow();
    await expect(fetch(`http://127.0.0.1:${mailPagePort}/`)).rejects.toThrow();
  }, 90_000);
});
