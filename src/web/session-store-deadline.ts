import session, { type SessionData, type Store } from 'express-session';

/** The session store gave no answer in time: Redis is silent, though its connection may look open. */
export class SessionStoreTimeoutError extends Error {
  override name = 'SessionStoreTimeoutError';

  constructor(timeoutMs: number) {
    super(`The session store did not answer within ${timeoutMs} ms`);
  }
}

type Callback<T> = (error?: unknown, value?: T) => void;

/**
 * The store, each of whose calls express-session makes answers within `timeoutMs`: with the store's
 * own answer, or a SessionStoreTimeoutError (and the late answer is dropped). node-redis bounds how
 * long a command waits to be sent, not how long it waits for its reply once sent: on a connection
 * Redis stopped reading, a session lookup would otherwise hold its request until Redis answers.
 */
export class SessionStoreWithDeadline extends session.Store {
  constructor(
    private readonly store: Store,
    private readonly timeoutMs: number,
  ) {
    super();
  }

  get(sid: string, callback: (error: unknown, session?: SessionData | null) => void): void {
    this.within((done) => this.store.get(sid, done), callback);
  }

  set(sid: string, data: SessionData, callback?: (error?: unknown) => void): void {
    this.within((done) => this.store.set(sid, data, done), callback);
  }

  destroy(sid: string, callback?: (error?: unknown) => void): void {
    this.within((done) => this.store.destroy(sid, done), callback);
  }

  override touch(sid: string, data: SessionData, callback?: (error?: unknown) => void): void {
    this.within((done) => (this.store.touch ? this.store.touch(sid, data, done) : done()), callback);
  }

  private within<T>(call: (done: Callback<T>) => void, callback: Callback<T> = () => {}): void {
    let answered = false;
    const answer: Callback<T> = (error, value) => {
      if (answered) return;
      answered = true;
      clearTimeout(timer);
      callback(error, value);
    };
    const timer = setTimeout(() => answer(new SessionStoreTimeoutError(this.timeoutMs)), this.timeoutMs);
    call(answer);
  }
}
