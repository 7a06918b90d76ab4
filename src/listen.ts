import { once } from 'node:events';
import type { Server } from 'node:http';
import { StartupError } from './errors.js';

/** Where a server listens, and the settings that say so: a failure names the one to change. */
export interface ListenAddress {
  host: string;
  port: number;
  hostSetting: string;
  portSetting: string;
}

/**
 * Starts `server` listening. A port in use or a host that is no address of this machine is a
 * problem of the settings, so it stops the process with one line naming the setting to change.
 */
export async function listenOn(server: Server, address: ListenAddress): Promise<void> {
  server.listen(address.port, address.host);
  try {
    await once(server, 'listening');
  } catch (error) {
    throw isListenFailure(error) ? new StartupError(cannotListen(error, address)) : error;
  }
}

function cannotListen(error: Error, { host, port, hostSetting, portSetting }: ListenAddress): string {
  const advice =
    'code' in error && error.code === 'EADDRNOTAVAIL'
      ? `${host} is no address of this machine: give ${hostSetting} one`
      : `the port is in use: give ${portSetting} a free port`;
  return `Cannot listen on ${host}:${port} (${hostSetting}, ${portSetting}): ${advice}.`;
}

function isListenFailure(error: unknown): error is Error {
  return error instanceof Error && 'syscall' in error && error.syscall === 'listen';
}
