import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { freePort } from '../../src/dev/free-port.js';
import { redisAnswers } from '../../src/queue/redis.js';
import { eventually } from './wait.js';

/** A redis-server of the test's own, on a fixed port, that the test can stop and start again. */
export class DisposableRedis {
  private server: ChildProcess | undefined;

  private constructor(readonly port: number) {}

  static async start(): Promise<DisposableRedis> {
    const redis = new DisposableRedis(await freePort());
    await redis.start();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.server = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await eventually(`redis-server on port ${this.port}`, async () => ((await redisAnswers(this.url, 200)) ? true : undefined), 10_000);
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server || server.exitCode !== null) return;
    const exited = once(server, 'exit');
    server.kill('SIGTERM');
    await exited;
  }
}
