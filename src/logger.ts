import { pino, type DestinationStream, type Logger, type LevelWithSilent } from 'pino';
import { logContext } from './observability/log-context.js';

export type { Logger };

/**
 * Secrets must never reach a log line, whatever object a caller happens to log.
 * Paths are pino's redact syntax; `*.x` covers the key one level down.
 */
const REDACTED_PATHS = [
  'access_token',
  'refresh_token',
  'code',
  'code_verifier',
  'client_secret',
  'password',
  'accessToken',
  'refreshToken',
  'codeVerifier',
  'clientSecret',
  '*.accessToken',
  '*.refreshToken',
  '*.codeVerifier',
  '*.clientSecret',
  '*.access_token',
  '*.refresh_token',
  'query.code',
  '*.code_verifier',
  '*.client_secret',
  '*.password',
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/**
 * Logs JSON lines to stdout, or to `destination` (tests use one to read what was logged). A line
 * written while a request or a job is handled carries its id (observability/log-context.ts).
 */
export function createLogger(level: LevelWithSilent, name = 'athlete-sync', destination?: DestinationStream): Logger {
  const options = { name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, mixin: logContext };
  return destination ? pino(options, destination) : pino(options);
}
