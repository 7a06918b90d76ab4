import { pino, type Logger, type LevelWithSilent } from 'pino';

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

export function createLogger(level: LevelWithSilent, name = 'athlete-sync'): Logger {
  return pino({ name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}
