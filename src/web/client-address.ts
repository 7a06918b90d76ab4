import type { Request } from 'express';

/**
 * The address that attempts are counted against: the connection's peer as Express reports it
 * (behind a proxy, the proxy, until the app is told which proxies to trust). Undefined only once
 * the connection is gone.
 */
export function clientAddress(req: Request): string {
  return req.ip ?? 'gone';
}
