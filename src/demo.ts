import { readableLog } from './dev/child-processes.js';
import { createAdminAccounts } from './dev/demo-admins.js';
import { findRedisForRun } from './dev/find-redis.js';
import { serveMailPage, startMailCatcher } from './dev/mail-catcher.js';
import { takenPortsError, type PortUse } from './dev/ports-in-use.js';
import { startDevStack } from './dev/stack.js';
import { closeOnSignal, runEntryPoint } from './entry-point.js';
import { KINDS } from './kinds.js';
import { createLogger } from './logger.js';

/**
 * `npm run demo`: the sandbox, the web app and a worker, each in its own process, wired together
 * with demo settings (src/dev/stack.ts), from the sources as they are now; and a local mail server
 * that keeps the app's mails, with a page to read them. The sandbox keeps everything in memory, so
 * every run starts empty, the app's database and Redis keys too: accounts, connections and synced
 * days of an earlier run would otherwise point at a service that no longer holds them.
 */
runEntryPoint(async () => {
  const redis = await findRedisForRun();
  const databaseUrl = process.env.DATABASE_URL ?? 'sqlite:./data/demo.db';
  const redisPrefix = process.env.REDIS_PREFIX ?? 'athlete-sync-demo';
  console.log(`Redis: ${withoutPassword(redis.shown)} (${redis.source}).`);
  const mail = await startMailCatcher();
  const mailPageUse = mailPagePort();
  const stack = await startDevStack({
    name: 'demo',
    webPort: Number(process.env.PORT ?? '3000'),
    sandboxPort: Number(process.env.SANDBOX_PORT ?? '4100'),
    redis: redis.settings,
    storage: {
      kind: 'fresh',
      databaseUrl,
      redisPrefix,
      onEmptied: () =>
        console.log(
          `The demo starts empty every time (the sandbox remembers nothing between runs): emptied ${withoutPassword(databaseUrl)} and the Redis keys ${redisPrefix}:*.`,
        ),
    },
    code: 'source',
    workers: 1,
    env: { SMTP_URL: mail.url, MAIL_FROM: 'athlete-sync demo <demo@localhost>' },
    otherPorts: [mailPageUse],
  }).catch(async (error: unknown) => {
    await redis.stop();
    await mail.close();
    throw error;
  });
  const mailPage = await serveMailPage(mail, mailPageUse.port).catch(async (error: unknown) => {
    await Promise.all([stack.stop(), redis.stop(), mail.close()]);
    // Taken since the stack looked, a moment ago.
    throw isPortTaken(error) ? await takenPortsError([mailPageUse], [mailPageUse], 'npm run demo') : error;
  });

  let stopping = false;
  const stopAll = async () => {
    stopping = true;
    await stack.stop();
    await redis.stop();
    mailPage.close();
    await mail.close();
    console.log(
      `The demo stopped. ${withoutPassword(databaseUrl)} and the Redis keys ${redisPrefix}:* are kept to look into until the next run.`,
    );
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
  const admins = await createAdminAccounts(stack.config);
  console.log(`\nathlete-sync demo is running. Open ${stack.appUrl}`);
  console.log(`The sandbox's state page: ${stack.sandboxUrl}/_sandbox`);
  for (const { email, password } of admins) {
    console.log(`The queue dashboard: ${stack.appUrl}/admin/queues, signed in as ${email} with the password ${password}`);
  }
  const metrics = [stack.web, ...stack.workers].map((_, index) => [index === 0 ? 'web' : `worker ${index}`, stack.metricsUrl(index)]);
  if (metrics.every(([, url]) => url !== undefined)) console.log(`Metrics: ${metrics.map(([name, url]) => `${name} ${url}`).join(', ')}`);
  for (const kind of KINDS) if (kind.demoHint) console.log(kind.demoHint());
  console.log(`Mails the app sent: http://127.0.0.1:${mailPageUse.port} (Ctrl+C stops everything)\n`);
});

/** The mail page's port, MAIL_PAGE_PORT, as the ports checked before the demo starts name it. */
function mailPagePort(): PortUse {
  return {
    port: Number(process.env.MAIL_PAGE_PORT ?? '4200'),
    host: '127.0.0.1',
    setting: 'MAIL_PAGE_PORT',
    offset: 0,
    what: 'the page of the mails the app sent',
  };
}

function isPortTaken(error: unknown): boolean {
  return error instanceof Error && 'code' in error && error.code === 'EADDRINUSE';
}

/** Database or Redis URLs as printed: each password replaced by ***. */
function withoutPassword(text: string): string {
  return text.replace(/(\/\/[^:@/\s,]*:)[^@/\s,]+@/g, '$1***@');
}
