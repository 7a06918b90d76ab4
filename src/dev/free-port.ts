import { randomInt } from 'node:crypto';
import getPort from 'get-port';

/** Below Linux's default range for the local ports of outgoing connections (32768–60999). */
const LISTEN_PORTS = { from: 20_000, to: 32_000 };

/**
 * A port free now, for a server started next. The system's own choice (port 0) comes from the range
 * of outgoing connections, which take ports at any moment: such a port, found free and listened on
 * a moment later, was taken by another process's connection (EADDRINUSE on a busy CI machine).
 * Random candidates, so that processes looking at once do not all try the same first port.
 */
export function freePort(): Promise<number> {
  const candidates = Array.from({ length: 20 }, () => randomInt(LISTEN_PORTS.from, LISTEN_PORTS.to));
  return getPort({ host: '127.0.0.1', port: candidates });
}
