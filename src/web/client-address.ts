import type { Request } from 'express';

/**
 * The address that attempts are counted against: the connection's peer as Express reports it
 * (behind proxies that TRUST_PROXY names, the address they forwarded). Undefined only once
 * the connection is gone.
 */
export function clientAddress(req: Request): string {
  return req.ip ?? 'gone';
}
