import session, { type SessionData } from 'express-session';
import { describe, expect, it } from 'vitest';
import { REMEMBERED_SESSIONS_MAX, SessionStoreWithFewerTouches } from '../../src/web/session-touches.js';
import { sessionTouchIntervalMs } from '../../src/web/session.js';

const MINUTE_MS = 60_000;
const data = { cookie: {} } as SessionData;

/** A store that counts the touches it is asked for, failing them while `failing` is set. */
class CountingStore extends session.MemoryStore {
  touches: string[] = [];
  failing = false;

  override touch(sid: string, _data: SessionData, callback?: (error?: unknown) => void): void {
    this.touches.push(sid);
    callback?.(this.failing ? new Error('Redis is away') : undefined);
  }
}

function storeAt(start = Date.now()) {
  const inner = new CountingStore();
  const clock = { now: start };
  const store = new SessionStoreWithFewerTouches(inner, MINUTE_MS, () => new Date(clock.now));
  const touch = (sid: string) =>
    new Promise<unknown>((resolve) => {
      store.touch(sid, data, resolve);
    });
  return { inner, clock, store, touch };
}

describe('a session store touching each session at most once a minute', () => {
  it('passes on the first touch of a session, then none until a minute after it', async () => {
    const { inner, clock, touch } = storeAt();
    await touch('a');
    clock.now += MINUTE_MS - 1;
    await touch('a');
    expect(inner.touches).toEqual(['a']);
    clock.now += 1;
    await touch('a');
    expect(inner.touches).toEqual(['a', 'a']);
  });

  it('counts a write of the session as its touch', async () => {
    const { inner, clock, store, touch } = storeAt();
    await new Promise((resolve) => store.set('a', data, resolve));
    clock.now += MINUTE_MS / 2;
    await touch('a');
    expect(inner.touches).toEqual([]);
  });

  it('keeps each session apart', async () => {
    const { inner, touch } = storeAt();
    await touch('a');
    await touch('b');
    await touch('a');
    expect(inner.touches).toEqual(['a', 'b']);
  });

  it('passes on the next touch after one that failed, and after the clock was set back', async () => {
    const { inner, clock, touch } = storeAt();
    inner.failing = true;
    expect(await touch('a')).toBeInstanceOf(Error);
    inner.failing = false;
    await touch('a');
    clock.now -= 10 * MINUTE_MS;
    await touch('a');
    expect(inner.touches).toEqual(['a', 'a', 'a']);
  });

  it('passes on the next touch of a destroyed session id', async () => {
    const { inner, store, touch } = storeAt();
    await touch('a');
    await new Promise((resolve) => store.destroy('a', resolve));
    await touch('a');
    expect(inner.touches).toEqual(['a', 'a']);
  });

  it('remembers only the sessions of the last minute, and at most REMEMBERED_SESSIONS_MAX of them', async () => {
    const { clock, store, touch } = storeAt();
    for (let i = 0; i < REMEMBERED_SESSIONS_MAX + 100; i++) await touch(`s${i}`);
    expect(store.rememberedCount).toBe(REMEMBERED_SESSIONS_MAX);
    clock.now += MINUTE_MS;
    await touch('later');
    expect(store.rememberedCount).toBe(1);
  });

  it('touches at least ten times in the idle time, for an idle time of minutes', () => {
    expect(sessionTouchIntervalMs(30 * MINUTE_MS)).toBe(MINUTE_MS);
    expect(sessionTouchIntervalMs(5 * MINUTE_MS)).toBe(MINUTE_MS / 2);
  });
});
