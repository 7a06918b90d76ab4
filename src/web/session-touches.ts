import session, { type SessionData, type Store } from 'express-session';

/** At most this many sessions are remembered as written lately; past it, the one written longest ago is forgotten. */
export const REMEMBERED_SESSIONS_MAX = 10_000;

/**
 * The store, where a session's expiry is reset (express-session's `touch`, with `rolling`) at most
 * once per `intervalMs` by this process: a touch within `intervalMs` of the session's last write or
 * touch here is answered at once, without a round trip to Redis. So a signed-in session ends between
 * `intervalMs` before and its idle time after its last request. What is remembered is the sessions
 * written in the last `intervalMs`, and at most REMEMBERED_SESSIONS_MAX of them: one forgotten is
 * touched again, which only costs the round trip.
 */
export class SessionStoreWithFewerTouches extends session.Store {
  /** Session id → when this process last wrote or touched it (ms), the oldest first. */
  private readonly written = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly intervalMs: number,
    private readonly clock: () => Date,
  ) {
    super();
  }

  get(sid: string, callback: (error: unknown, session?: SessionData | null) => void): void {
    this.store.get(sid, callback);
  }

  set(sid: string, data: SessionData, callback?: (error?: unknown) => void): void {
    this.remember(sid, this.now());
    this.store.set(sid, data, (error) => {
      if (error) this.written.delete(sid);
      callback?.(error);
    });
  }

  destroy(sid: string, callback?: (error?: unknown) => void): void {
    this.written.delete(sid);
    this.store.destroy(sid, callback);
  }

  override touch(sid: string, data: SessionData, callback?: (error?: unknown) => void): void {
    const now = this.now();
    const last = this.written.get(sid);
    // A time ahead of now (the clock was set back) is not trusted to be recent.
    if (last !== undefined && last <= now && now - last < this.intervalMs) {
      callback?.();
      return;
    }
    this.remember(sid, now);
    if (!this.store.touch) {
      callback?.();
      return;
    }
    // The store's callback, typed as taking nothing, is given the error as connect-redis gives it.
    this.store.touch(sid, data, (error?: unknown) => {
      if (error) this.written.delete(sid);
      callback?.(error);
    });
  }

  /** How many sessions are remembered as written lately. */
  get rememberedCount(): number {
    return this.written.size;
  }

  private now(): number {
    return this.clock().getTime();
  }

  private remember(sid: string, now: number): void {
    this.written.delete(sid);
    this.written.set(sid, now);
    for (const [oldest, at] of this.written) {
      if (this.written.size <= REMEMBERED_SESSIONS_MAX && now - at < this.intervalMs && at <= now) break;
      this.written.delete(oldest);
    }
  }
}
