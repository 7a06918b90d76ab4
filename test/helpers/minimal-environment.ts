import { testRedisPrefix } from './redis-keys.js';

/**
 * The least a production command needs to start, as a person would set it in a shell: the
 * required settings with harmless values, a service on this machine, logs at info; and the test
 * file's Redis key prefix, so that the processes never write under the default one. A function,
 * not a constant: the files of a vitest worker share this module, and each file has its own prefix.
 */
export const minimalAppEnvironment = () => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  LOG_LEVEL: 'info',
  APP_BASE_URL: 'http://localhost:3000',
  SESSION_SECRET: 's'.repeat(32),
  TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  ATHLETE_BASE_URL: 'http://127.0.0.1:4100',
  ATHLETE_CLIENT_ID: 'client',
  ATHLETE_CLIENT_SECRET: 'secret',
  REDIS_PREFIX: testRedisPrefix(),
});
