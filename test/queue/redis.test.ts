import { describe, expect, inject, it } from 'vitest';
import { createProducerConnection, untilReady } from '../../src/queue/redis.js';

describe('a producer connection', () => {
  it('refuses a command sent before it is connected, and answers once untilReady resolves', async () => {
    const early = createProducerConnection(inject('redisUrl'));
    // What a web process that listens at once would do with its first request.
    await expect(early.ping()).rejects.toThrow("Stream isn't writeable");
    early.disconnect();

    const ready = await untilReady(createProducerConnection(inject('redisUrl')), { url: inject('redisUrl'), timeoutS: 5 });
    expect(await ready.ping()).toBe('PONG');
    ready.disconnect();
  });
});
