import { describe, expect, it } from 'vitest';
import { describeSync } from '../../src/sync/sync-words.js';

const NOW = new Date('2026-11-23T09:58:13Z');
const FAR_ZONE = 'Pacific/Kiritimati'; // UTC+14: the person's day is already the 24th

describe('an entry’s sync status in words', () => {
  it('says when a sent entry was sent, relative to now, and keeps the local time and version for the details', () => {
    const words = describeSync({ status: 'synced', syncedAt: '2026-11-23T09:56:10.973Z', syncedVersion: 9 }, FAR_ZONE, NOW, 'connected');
    expect(words).toEqual({
      state: 'synced',
      headline: 'Sent 2 minutes ago',
      details: ['Sent at 23 Nov 2026, 23:56:10 (Pacific/Kiritimati) as version 9.'],
    });
  });

  it('says "just now" within a minute, also when the sender’s clock ran a little ahead', () => {
    for (const syncedAt of ['2026-11-23T09:58:00Z', '2026-11-23T09:58:15Z']) {
      expect(describeSync({ status: 'synced', syncedAt, syncedVersion: 1 }, FAR_ZONE, NOW, 'connected').headline).toBe('Sent just now');
    }
    expect(
      describeSync({ status: 'synced', syncedAt: '2026-11-20T09:00:00Z', syncedVersion: 1 }, FAR_ZONE, NOW, 'connected').headline,
    ).toBe('Sent 3 days ago');
  });

  it('waits on a busy service with the time of the next try, its raw answer only in the details', () => {
    const facts = {
      status: 'pending' as const,
      problem: 'service-busy' as const,
      error: 'HTTP 503: temporarily_unavailable: injected fault',
    };
    expect(describeSync({ ...facts, nextAttemptAt: '2026-11-23T09:58:43Z' }, FAR_ZONE, NOW, 'connected')).toEqual({
      state: 'pending',
      headline: 'Waiting: the service is busy, next try in about 30 s',
      details: ['Reason recorded: HTTP 503: temporarily_unavailable: injected fault'],
    });
    expect(describeSync({ ...facts, nextAttemptAt: '2026-11-23T10:03:13Z' }, FAR_ZONE, NOW, 'connected').headline).toBe(
      'Waiting: the service is busy, next try in 5 minutes',
    );
  });

  it('says "soon" when the next try is not known or already due', () => {
    expect(
      describeSync({ status: 'pending', problem: 'no-answer', error: 'no answer (ECONNRESET)' }, FAR_ZONE, NOW, 'connected').headline,
    ).toBe('Waiting: the service did not answer, next try soon');
    expect(
      describeSync(
        { status: 'pending', problem: 'service-busy', error: 'HTTP 502', nextAttemptAt: '2026-11-23T09:58:00Z' },
        FAR_ZONE,
        NOW,
        'connected',
      ).headline,
    ).toBe('Waiting: the service is busy, next try soon');
  });

  it('says a wait held up on this side (stored tokens waiting for a key) is not the service', () => {
    expect(describeSync({ status: 'pending', problem: 'held-here', error: 'sealed with a key' }, FAR_ZONE, NOW, 'connected').headline).toBe(
      'Waiting: held up on our side, next try soon',
    );
  });

  it('waits for the person when only they can help', () => {
    expect(
      describeSync({ status: 'pending', problem: 'needs-connection', error: 'Waiting for the connection' }, FAR_ZONE, NOW, 'connected')
        .headline,
    ).toBe('Waiting for you to reconnect');
  });

  it('says an entry waits for a connection while the person is not connected, whatever its last try, and for a reconnect while one is needed', () => {
    for (const facts of [
      { status: 'pending' as const },
      { status: 'pending' as const, problem: 'service-busy' as const, error: 'HTTP 503' },
    ]) {
      const words = describeSync(facts, FAR_ZONE, NOW, 'not-connected');
      expect(words.headline).toBe('Waiting for a connection');
      expect(words.details[0]).toBe(
        'Nothing is sent while you are not connected to the Athlete Data Service: connect on the dashboard to send it.',
      );
      expect(describeSync(facts, FAR_ZONE, NOW, 'needs-reconnect').headline).toBe('Waiting for you to reconnect');
    }
    expect(
      describeSync({ status: 'synced', syncedAt: '2026-11-23T09:56:10.973Z', syncedVersion: 1 }, FAR_ZONE, NOW, 'not-connected').state,
    ).toBe('synced');
  });

  it('says an entry not tried yet waits, and one whose failure was recorded without its kind will be tried again', () => {
    expect(describeSync({ status: 'pending' }, FAR_ZONE, NOW, 'connected')).toEqual({
      state: 'pending',
      headline: 'Waiting to be sent',
      details: [],
    });
    expect(describeSync({ status: 'pending', error: 'HTTP 503' }, FAR_ZONE, NOW, 'connected').headline).toBe(
      'Waiting: the last try failed, next try soon',
    );
  });

  it('says a refusal in plain words with the service’s raw message only in the details, and an entry this app cannot send with its own words', () => {
    const refused = describeSync(
      { status: 'failed', problem: 'refused', error: 'HTTP 413: invalid_request: file too large (maxFitBytes)' },
      FAR_ZONE,
      NOW,
      'connected',
    );
    expect(refused.headline).toBe('Refused by the service');
    expect(refused.details).toEqual([
      'It is tried again when the entry next changes.',
      'Reason recorded: HTTP 413: invalid_request: file too large (maxFitBytes)',
    ]);
    const unsendable = describeSync(
      { status: 'failed', problem: 'unsendable', error: 'Not sent: user id 0 is not a positive whole number.' },
      FAR_ZONE,
      NOW,
      'connected',
    );
    expect(unsendable.headline).toBe('Not sent: user id 0 is not a positive whole number.');
  });
});
