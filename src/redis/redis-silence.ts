import { performance } from 'node:perf_hooks';
import type { Logger } from '../logger.js';
import type { RedisConnection } from './redis-target.js';
import { REDIS_REPLY_TIMEOUT_MS } from './redis.js';

const PROBE_EVERY_MS = 1000;

export interface SilenceWatch {
  stop(): void;
}

/**
 * A worker's commands wait for Redis however long it takes (BullMQ's need to), so a Redis that stops
 * answering without closing its connection (a partition, a stalled host) would hold every turn
 * without a word. A PING each second tells: one unanswered for REDIS_REPLY_TIMEOUT_MS is one warn
 * line, and its answer, once Redis is back, one info line. A closed connection is logReconnects's to say.
 */
export function watchForSilence(redis: RedisConnection, logger: Logger, name: string): SilenceWatch {
  let probing = false;
  const probe = () => {
    if (probing || redis.status !== 'ready') return;
    probing = true;
    const sentAt = performance.now();
    let said = false;
    const silent = setTimeout(() => {
      said = true;
      logger.warn({ redisClient: name }, `Redis not answering (no reply within ${REDIS_REPLY_TIMEOUT_MS} ms): waiting for it`);
    }, REDIS_REPLY_TIMEOUT_MS).unref();
    redis
      .ping()
      .then(
        () => {
          if (said) logger.info({ redisClient: name, silentForMs: Math.round(performance.now() - sentAt) }, 'Redis answering again');
        },
        () => {},
      )
      .finally(() => {
        clearTimeout(silent);
        probing = false;
      });
  };
  const timer = setInterval(probe, PROBE_EVERY_MS).unref();
  return { stop: () => clearInterval(timer) };
}
