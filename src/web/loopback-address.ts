import type { RequestHandler } from 'express';
import ipaddr from 'ipaddr.js';
import { wantsJson } from './wants-json.js';

/** Whether a URL's hostname (`localhost`, `127.0.0.1`, `[::1]`) names this machine's loopback interface. */
export function isLoopbackHostname(hostname: string): boolean {
  const address = hostname.replace(/^\[(.*)\]$/, '$1');
  if (address === 'localhost' || address.endsWith('.localhost')) return true;
  return ipaddr.isValid(address) && ipaddr.process(address).range() === 'loopback';
}

/**
 * Whether `origin` is another spelling of `appOrigin` on this machine: both loopback, on the same
 * port and scheme, not the same. (Another port is another server, or a proxy: not a spelling.)
 */
export function isOtherLoopbackSpelling(origin: string, appOrigin: string): boolean {
  if (origin === appOrigin || !URL.canParse(origin)) return false;
  const [asked, app] = [new URL(origin), new URL(appOrigin)];
  return (
    asked.protocol === app.protocol && asked.port === app.port && isLoopbackHostname(asked.hostname) && isLoopbackHostname(app.hostname)
  );
}

/**
 * A local run (the demo) serves APP_BASE_URL, say http://localhost:3000, on an interface that
 * answers to 127.0.0.1 as well. A page opened at the other spelling is another origin to the
 * browser: its forms would be refused (their Origin is not the app's) and its cookies kept apart.
 * So a page asked for under another loopback spelling is sent to the same path at APP_BASE_URL
 * before any form is shown. The JSON API is answered where it is asked: scripts send no Origin,
 * and their cookies belong to the address they used. An APP_BASE_URL on another host changes nothing.
 */
export function sendToAppAddressOnThisMachine(appBaseUrl: string): RequestHandler {
  const appOrigin = new URL(appBaseUrl).origin;
  return (req, res, next) => {
    const requestOrigin = `${req.protocol}://${req.host}`;
    if ((req.method !== 'GET' && req.method !== 'HEAD') || wantsJson(req) || !isOtherLoopbackSpelling(requestOrigin, appOrigin)) {
      return next();
    }
    // Concatenated, never resolved: a path such as //evil.example stays a path on the app's origin.
    res.redirect(307, `${appOrigin}${req.originalUrl}`);
  };
}
