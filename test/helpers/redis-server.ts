import { startPrivateRedis, type PrivateRedis } from '../../src/dev/find-redis.js';

/** A redis-server of the test's own (a private one, as `npm run chaos` starts) that the test can stop and start again. */
export class DisposableRedis {
  private constructor(private readonly redis: PrivateRedis) {}

  static async start(): Promise<DisposableRedis> {
    return new DisposableRedis(await startPrivateRedis());
  }

  get url(): string {
    return this.redis.url;
  }

  /** Starts it again, empty, on the same port. */
  start(): Promise<void> {
    return this.redis.restart();
  }

  /** Stops it answering, its connections left open (SIGSTOP), until `thaw`. */
  freeze(): void {
    this.redis.freeze();
  }

  thaw(): void {
    this.redis.thaw();
  }

  stop(): Promise<void> {
    return this.redis.stop();
  }
}
