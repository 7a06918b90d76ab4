import { describe, expect, it } from 'vitest';
import { connectionStanding } from '../../src/connections/connection-standing.js';
import type { Connection } from '../../src/connections/connection.repository.js';

const now = new Date('2026-11-23T12:00:00Z');
const connection: Connection = {
  userId: 1,
  grantId: 'grant',
  status: 'connected',
  statusReason: undefined,
  scopes: ['nutrition:write'],
  issuedAt: new Date('2026-11-23T11:00:00Z'),
  expiresAt: new Date('2026-11-23T13:00:00Z'),
  refreshExpiresAt: undefined,
  refreshLease: undefined,
  version: 1,
};

describe('what is still true after a Connect attempt that did not connect', () => {
  it('offers Connect to a person who has no connection', () => {
    expect(connectionStanding(undefined, now)).toMatchObject({ kind: 'not_connected', tryAgain: 'Connect' });
  });

  it('says the earlier approval still holds for a connected person', () => {
    expect(connectionStanding(connection, now)).toEqual({
      kind: 'connected',
      words: 'You are still connected with your earlier approval.',
      tryAgain: 'Reconnect',
    });
  });

  it('says syncing stays paused when the earlier connection needs reconnecting, also once its refresh token ran out', () => {
    const marked = { ...connection, status: 'needs_reconnect' as const };
    const lapsed = { ...connection, refreshExpiresAt: now };
    for (const earlier of [marked, lapsed]) {
      expect(connectionStanding(earlier, now)).toMatchObject({ kind: 'needs_reconnect', tryAgain: 'Reconnect' });
      expect(connectionStanding(earlier, now).words).toContain('syncing stays paused until you reconnect');
    }
  });
});
