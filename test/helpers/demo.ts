import { join } from 'node:path';
import { inject } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { start, type Running } from './processes.js';
import { testRedisPrefix } from './redis-keys.js';
import { temporaryFolder } from './temporary-folders.js';

/** Starting a demo is most of a demo test's time: four Node processes load the sources through tsx. */
export const DEMO_START_MS = 120_000;

export interface DemoPorts {
  web: number;
  sandbox: number;
  mailPage: number;
  /** The web's; worker 1's is the next one. */
  metrics: number;
}

export async function demoPorts(): Promise<DemoPorts> {
  return { web: await freePort(), sandbox: await freePort(), mailPage: await freePort(), metrics: await freePort() };
}

/** What a person would set to run the demo on these ports, with the test's Redis and a database of the test's own. */
export function demoEnvironment(ports: DemoPorts, more: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(ports.web),
    SANDBOX_PORT: String(ports.sandbox),
    MAIL_PAGE_PORT: String(ports.mailPage),
    METRICS_PORT: String(ports.metrics),
    SANDBOX_AUTO_APPROVE: 'Ada',
    // A day reaches the sandbox without the default 5 s of quiet first.
    SYNC_QUIET_MS: '200',
    DATABASE_URL: `sqlite:${join(temporaryFolder('athlete-sync-demo-'), 'demo.db')}`,
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: testRedisPrefix(),
    ...more,
  };
}

/** Starts `npm run demo` and waits for the last line it prints once everything runs. */
export async function startDemo(env: NodeJS.ProcessEnv): Promise<Running> {
  const started = start('npm', ['run', 'demo'], env);
  try {
    await started.waitForOutput(/Mails the app sent/, DEMO_START_MS);
  } catch (error) {
    await started.stop('SIGINT');
    throw error;
  }
  return started;
}

/** What the demo printed after `label`, up to the end of its line. */
export function printedAfter(demo: Running, label: string): string {
  const line = demo
    .output()
    .split('\n')
    .find((candidate) => candidate.startsWith(label));
  if (line === undefined) throw new Error(`the demo printed no line starting ${label}`);
  return line.slice(label.length).trim();
}
