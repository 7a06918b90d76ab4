import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';

describe('freePort', () => {
  it('gives a port below the range of outgoing connections that a server can listen on', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThanOrEqual(20_000);
    expect(port).toBeLessThan(32_768);
    const server = createServer().listen(port, '127.0.0.1');
    await new Promise((resolve, reject) => server.once('listening', resolve).once('error', reject));
    server.close();
  });

  it('gives different ports to callers looking at once', async () => {
    const ports = await Promise.all(Array.from({ length: 10 }, () => freePort()));
    expect(new Set(ports).size).toBe(10);
  });
});
