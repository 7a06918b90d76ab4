import { once } from 'node:events';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { run, start } from '../helpers/processes.js';

const environment = (settings: Record<string, string>) => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  SANDBOX_LOG_LEVEL: 'silent',
  ...settings,
});

describe('npm run sandbox', () => {
  it('prints its address, answers /healthz and stops on Ctrl+C', async () => {
    const port = await freePort();
    const sandbox = start('npm', ['run', '--silent', 'sandbox'], environment({ SANDBOX_PORT: String(port) }));
    try {
      const [line] = await sandbox.waitForOutput(/.*listening on.*/);
      expect(line).toBe(`Athlete Data Service sandbox listening on http://127.0.0.1:${port}`);
      const health = await fetch(`http://127.0.0.1:${port}/healthz`);
      expect(await health.json()).toEqual({ ok: true });
    } finally {
      await sandbox.stop('SIGINT');
    }
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('stops with one line naming SANDBOX_PORT when its port is taken', async () => {
    const port = await freePort();
    const holder = createServer().listen(port, '127.0.0.1');
    await once(holder, 'listening');
    try {
      const result = await run('npm', ['run', '--silent', 'sandbox'], environment({ SANDBOX_PORT: String(port) }));
      expect(result.code).toBe(1);
      expect(result.stderr.trim()).toBe(
        `Athlete Data Service sandbox cannot listen on 127.0.0.1:${port}: listen EADDRINUSE: address already in use 127.0.0.1:${port}: give SANDBOX_PORT a free port.`,
      );
    } finally {
      holder.close();
    }
  });

  it('stops with one line naming a bad variable', async () => {
    const result = await run('npm', ['run', '--silent', 'sandbox'], environment({ SANDBOX_FAULT_RATE: 'often' }));
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe('Invalid SANDBOX_FAULT_RATE: expected a number such as 0.25');
  });
});
