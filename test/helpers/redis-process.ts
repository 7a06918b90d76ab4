import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { stopChild } from '../../src/dev/child-processes.js';
import { freePort } from '../../src/dev/free-port.js';
import { temporaryFolder } from './temporary-folders.js';

/** A redis-server (or sentinel) of the test's own, on a free port of 127.0.0.1, in a folder of its own. */
export interface RedisProcess {
  port: number;
  /** Runs `use` on a connection of its own to it (authenticated when it has a password), closed after. */
  withConnection<T>(use: (redis: Redis) => Promise<T>): Promise<T>;
  /** SIGKILL, as a crash. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export interface RedisProcessOptions {
  /** Lines of its configuration file, after its port, address and folder. */
  config?: string[];
  /** Runs it as a sentinel (`redis-server <file> --sentinel`), which rewrites the file as it learns. */
  sentinel?: boolean;
  /** `requirepass`: what clients must give. */
  password?: string;
}

const START_TIMEOUT_MS = 5000;

export async function startRedisProcess({ config = [], sentinel = false, password }: RedisProcessOptions = {}): Promise<RedisProcess> {
  const port = await freePort();
  const folder = temporaryFolder('athlete-sync-redis-');
  const file = join(folder, 'redis.conf');
  const lines = [
    `port ${port}`,
    'bind 127.0.0.1',
    `dir ${folder}`,
    ...(sentinel ? [] : ['save ""', 'appendonly no']),
    ...(password === undefined ? [] : [`requirepass ${password}`]),
    ...config,
  ];
  writeFileSync(file, `${lines.join('\n')}\n`);
  const server = spawn('redis-server', sentinel ? [file, '--sentinel'] : [file], { stdio: 'ignore' });
  const stopOnExit = () => server.kill('SIGKILL');
  process.once('exit', stopOnExit);
  await once(server, 'spawn');
  const connect = () =>
    new Redis({ host: '127.0.0.1', port, password, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  await untilAnswering(connect, () => server.exitCode !== null);
  const end = async (signal: NodeJS.Signals) => {
    process.off('exit', stopOnExit);
    await stopChild(server, signal);
  };
  return {
    port,
    withConnection: async (use) => {
      const redis = new Redis({ host: '127.0.0.1', port, password });
      try {
        return await use(redis);
      } finally {
        redis.disconnect();
      }
    },
    kill: () => end('SIGKILL'),
    stop: () => end('SIGTERM'),
  };
}

async function untilAnswering(connect: () => Redis, exited: () => boolean): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (exited()) throw new Error('redis-server exited at start');
    const probe = connect();
    probe.on('error', () => {});
    const answered = await probe.connect().then(
      () => probe.ping(),
      () => undefined,
    );
    probe.disconnect();
    if (answered === 'PONG') return;
    await sleep(50);
  }
  throw new Error(`redis-server did not answer within ${START_TIMEOUT_MS} ms`);
}
