import { describe, expect, inject, it } from 'vitest';
import { Redis } from 'ioredis';
import { RedisNotFoundError, findRedis, startPrivateRedis } from '../../src/dev/find-redis.js';
import { freePort } from '../../src/dev/free-port.js';
import { redisAnswers } from '../../src/redis/redis.js';

async function closedPortUrl(): Promise<string> {
  return `redis://127.0.0.1:${await freePort()}`;
}

describe('findRedis', () => {
  it('takes REDIS_URL as given without probing it', async () => {
    const found = await findRedis({ env: { REDIS_URL: 'redis://elsewhere:6390/2' } });
    expect(found.url).toBe('redis://elsewhere:6390/2');
  });

  it('uses the local server when it answers', async () => {
    const running = inject('redisUrl');
    const found = await findRedis({ env: {}, localUrl: running });
    expect(found.url).toBe(running);
    await found.stop();
    expect(await redisAnswers(running)).toBe(true);
  });

  it('starts a private redis-server on a free port when none answers, and stops it', async () => {
    const found = await findRedis({ env: { PATH: process.env.PATH }, localUrl: await closedPortUrl() });
    try {
      expect(found.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
      expect(await redisAnswers(found.url)).toBe(true);
    } finally {
      await found.stop();
    }
    expect(await redisAnswers(found.url, 300)).toBe(false);
  });

  it('says in one line how to install Redis when there is none to find or start', async () => {
    const search = findRedis({ env: { PATH: '/nonexistent' }, localUrl: await closedPortUrl() });
    await expect(search).rejects.toBeInstanceOf(RedisNotFoundError);
    await expect(search).rejects.toThrow(/apt-get install redis-server/);
  });
});

describe('startPrivateRedis', () => {
  it('is killed and restarted empty on the same port', async () => {
    const redis = await startPrivateRedis();
    try {
      const client = new Redis(redis.url, { lazyConnect: true });
      await client.set('kept?', 'yes');
      client.disconnect();
      await redis.kill();
      expect(await redisAnswers(redis.url, 300)).toBe(false);
      await redis.restart();
      const again = new Redis(redis.url);
      expect(await again.get('kept?')).toBeNull();
      again.disconnect();
    } finally {
      await redis.stop();
    }
    expect(await redisAnswers(redis.url, 300)).toBe(false);
  });
});
