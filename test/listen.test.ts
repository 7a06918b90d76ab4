import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { StartupError } from '../src/errors.js';
import { listenOn } from '../src/listen.js';

const SETTINGS = { hostSetting: 'SOME_HOST', portSetting: 'SOME_PORT' };
const [first, second] = [createServer(), createServer()];

afterEach(async () => {
  await Promise.all([first, second].filter((server) => server.listening).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('listenOn', () => {
  it('listens on the address it is given', async () => {
    await listenOn(first, { host: '127.0.0.1', port: 0, ...SETTINGS });
    expect(first.listening).toBe(true);
  });

  it('names the port setting to change when the port is in use', async () => {
    await listenOn(first, { host: '127.0.0.1', port: 0, ...SETTINGS });
    const { port } = first.address() as AddressInfo;
    const taken = listenOn(second, { host: '127.0.0.1', port, ...SETTINGS });
    await expect(taken).rejects.toThrow(StartupError);
    await expect(taken).rejects.toThrow(
      `Cannot listen on 127.0.0.1:${port} (SOME_HOST, SOME_PORT): the port is in use: give SOME_PORT a free port.`,
    );
  });

  it('names the host setting to change when the host is no address of this machine', async () => {
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): never an address of this machine.
    await expect(listenOn(second, { host: '192.0.2.1', port: 0, ...SETTINGS })).rejects.toThrow(
      'Cannot listen on 192.0.2.1:0 (SOME_HOST, SOME_PORT): 192.0.2.1 is no address of this machine: give SOME_HOST one.',
    );
  });
});
