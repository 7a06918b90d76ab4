import { describe, expect, it } from 'vitest';
import { PENDING_CONNECT_TTL_MS, addPendingConnect, takePendingConnect } from '../../src/connections/pending-connects.js';

const now = new Date('2026-11-21T12:00:00Z');
const attempt = (state: string) => ({ url: new URL('https://example.com'), state, codeVerifier: `verifier-${state}` });
const later = (ms: number) => new Date(now.getTime() + ms);

describe('pending Connect attempts', () => {
  it('keeps one attempt per tab and hands each back once', () => {
    let pending = addPendingConnect(undefined, attempt('tab1'), now);
    pending = addPendingConnect(pending, attempt('tab2'), now);
    const first = takePendingConnect(pending, 'tab2', now);
    expect(first.attempt).toEqual({ kind: 'live', codeVerifier: 'verifier-tab2' });
    expect(takePendingConnect(first.remaining, 'tab2', now).attempt).toEqual({ kind: 'unknown' });
    expect(takePendingConnect(first.remaining, 'tab1', now).attempt).toEqual({ kind: 'live', codeVerifier: 'verifier-tab1' });
  });

  it('expires an attempt after ten minutes, and says that it expired', () => {
    const pending = addPendingConnect(undefined, attempt('s'), now);
    expect(takePendingConnect(pending, 's', later(PENDING_CONNECT_TTL_MS - 1)).attempt).toEqual({
      kind: 'live',
      codeVerifier: 'verifier-s',
    });
    const expired = takePendingConnect(pending, 's', later(PENDING_CONNECT_TTL_MS));
    expect(expired.attempt).toEqual({ kind: 'expired' });
    expect(expired.remaining).toEqual({});
  });

  it('does not know a state it never issued', () => {
    const pending = addPendingConnect(undefined, attempt('mine'), now);
    expect(takePendingConnect(pending, 'forged', now).attempt).toEqual({ kind: 'unknown' });
  });

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])(
    'does not know the state %s, which every object inherits',
    (state) => {
      const pending = addPendingConnect(undefined, attempt('mine'), now);
      expect(takePendingConnect(pending, state, now).attempt).toEqual({ kind: 'unknown' });
      expect(takePendingConnect(undefined, state, now).attempt).toEqual({ kind: 'unknown' });
    },
  );

  it('holds at most five attempts, dropping the oldest and the expired', () => {
    let pending = addPendingConnect(undefined, attempt('expired'), now);
    for (let i = 0; i < 6; i++) pending = addPendingConnect(pending, attempt(`s${i}`), later(PENDING_CONNECT_TTL_MS + i));
    expect(Object.keys(pending)).toEqual(['s1', 's2', 's3', 's4', 's5']);
  });
});
