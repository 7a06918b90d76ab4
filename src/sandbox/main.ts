import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { createSandbox } from './app.js';
import { settingsFromEnvironment } from './environment.js';

const environment = settingsFromEnvironment(process.env);
if (!environment.ok) {
  console.error(environment.problem);
  process.exit(1);
}
const { settings } = environment;

const { app } = createSandbox({ settings, logger: pino({ level: settings.logLevel }) });

const server = app.listen(settings.port, settings.host, (error?: Error) => {
  if (error) {
    console.error(
      `Athlete Data Service sandbox cannot listen on ${settings.host}:${settings.port}: ${error.message}: ${listenAdvice(error)}.`,
    );
    process.exit(1);
  }
  console.log(`Athlete Data Service sandbox listening on ${addressOf(server.address())}`);
});

/** A port in use is the usual failure; an address not available means SANDBOX_HOST names no address of this machine. */
function listenAdvice(error: Error): string {
  if ('code' in error && error.code === 'EADDRNOTAVAIL') return 'give SANDBOX_HOST an address of this machine';
  return 'give SANDBOX_PORT a free port';
}

function addressOf(address: AddressInfo | string | null): string {
  if (address === null || typeof address === 'string') return String(address);
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}`;
}

function shutDown(): void {
  // Stalled requests (fault injection) would hold the server open; cut them.
  server.close(() => process.exit(0));
  server.closeAllConnections();
}

process.once('SIGINT', shutDown);
process.once('SIGTERM', shutDown);
