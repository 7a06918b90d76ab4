import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';

/**
 * With APP_BASE_URL https, a request that reached the app as plain http means the proxy in front
 * of it is not believed (TRUST_PROXY) or sends no X-Forwarded-Proto: the browser is never given
 * the Secure session cookie, and signing in seems to do nothing. Said once, for the operator.
 */
export function warnOfPlainHttp(logger: Logger): RequestHandler {
  let warned = false;
  return (req, _res, next) => {
    if (!req.secure && !warned) {
      warned = true;
      logger.warn(
        { peer: req.socket.remoteAddress },
        'a request arrived as plain http although APP_BASE_URL is https: no session cookie can be set. ' +
          'Set TRUST_PROXY to the addresses of the proxy in front of the app, and have it send X-Forwarded-Proto',
      );
    }
    next();
  };
}
