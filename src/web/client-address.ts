import type { Request } from 'express';
import ipaddr from 'ipaddr.js';

/**
 * An IPv6 client is counted by its /64: the block an ISP gives one customer (RFC 6177), within
 * which each device picks addresses at will (RFC 8981), so that one address per attempt would
 * otherwise escape every limit.
 */
const IPV6_CLIENT_PREFIX = 64;

/**
 * The address that attempts are counted against: the connection's peer as Express reports it
 * (behind proxies that TRUST_PROXY names, the address they forwarded), an IPv6 one as its /64.
 * Only "gone" once the connection is.
 */
export function clientAddress(req: Request): string {
  return req.ip === undefined ? 'gone' : addressBlock(req.ip);
}

/** An IPv4 address as it is, an IPv6 one as its /64; a socket that takes both shows IPv4 as ::ffff:a.b.c.d. */
function addressBlock(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${ipaddr.IPv6.networkAddressFromCIDR(`${parsed.toString()}/${IPV6_CLIENT_PREFIX}`).toString()}/${IPV6_CLIENT_PREFIX}`;
}
