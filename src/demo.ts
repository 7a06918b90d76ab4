import { readableLog } from './dev/child-processes.js';
import { findRedis } from './dev/find-redis.js';
import { startDevStack } from './dev/stack.js';
import { closeOnSignal, runEntryPoint } from './entry-point.js';
import { createLogger } from './logger.js';

/**
 * `npm run demo`: the sandbox, the web app and a worker, each in its own process, wired together
 * with demo settings (src/dev/stack.ts), from the sources as they are now.
 */
runEntryPoint(async () => {
  const redis = await findRedis();
  const stack = await startDevStack({
    name: 'demo',
    webPort: Number(process.env.PORT ?? '3000'),
    sandboxPort: Number(process.env.SANDBOX_PORT ?? '4100'),
    redisUrl: redis.url,
    storage: {
      kind: 'kept',
      databaseUrl: process.env.DATABASE_URL ?? 'sqlite:./data/demo.db',
      redisPrefix: process.env.REDIS_PREFIX ?? 'athlete-sync-demo',
    },
    code: 'source',
    workers: 1,
  }).catch(async (error: unknown) => {
    await redis.stop();
    throw error;
  });

  let stopping = false;
  const stopAll = async () => {
    stopping = true;
    await stack.stop();
    await redis.stop();
  };
  closeOnSignal([{ what: 'the sandbox, web and worker processes', close: stopAll }], {
    timeoutMs: stack.config.shutdownTimeoutMs,
    logger: createLogger(stack.config.logLevel, 'demo', { write: (line: string) => void process.stdout.write(readableLog(line)) }),
  });
  for (const child of [stack.sandbox, stack.web, ...stack.workers]) {
    child.once('exit', (code) => {
      if (stopping) return;
      console.error(`A demo process exited (code ${code}); stopping the demo.`);
      void stopAll().finally(() => process.exit(1));
    });
  }
  console.log(`\nathlete-sync demo is running. Open ${stack.appUrl}`);
  console.log(`The sandbox's state page: ${stack.sandboxUrl}/_sandbox (Ctrl+C stops everything)\n`);
});
