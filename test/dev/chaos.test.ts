import { describe, expect, it } from 'vitest';
import { devCommandRunner } from '../helpers/dev-command.js';
import { workload } from '../helpers/kinds.js';

describe('npm run chaos', () => {
  const runDevCommand = devCommandRunner();

  it('loses no acknowledged write through worker restarts (SIGTERM, then SIGKILL), a Redis restart and faults, and explains every revoked grant', async () => {
    const flags = [
      '--kind',
      workload.name,
      '--users',
      '3',
      '--days',
      '2',
      '--clients',
      '3',
      '--workers',
      '2',
      '--seconds',
      '8',
      '--restart-every',
      '3',
      '--converge-seconds',
      '20',
    ];
    // Shorter than by default, to fit the suite's budget (docs/performance.md, "Chaos"): a worker stopped while its
    // BullMQ blocking connection still reconnects after the Redis restart waits out SHUTDOWN_TIMEOUT_MS.
    const env = { ...process.env, SHUTDOWN_TIMEOUT_MS: '5000' };
    const { stdout, results: json } = await runDevCommand('src/dev/chaos/main.ts', flags, { timeoutMs: 80_000, env });

    // How many restarts fit in a phase depends on how long each stop takes on a busy machine.
    expect(stdout).toMatch(
      /^phase SIGTERM \+ Redis restarted empty +\| [12] worker restarts \(longest stop [\d.]+ s\), 0 refresh-token reuses, 0 revoked grants$/m,
    );
    expect(stdout).toMatch(/^phase SIGKILL +\| [12] worker restarts/m);
    expect(stdout.match(/^PASS /gm)).toHaveLength(7);

    expect(json.writes.acknowledged.add).toBeGreaterThan(0);
    expect(json.writes.acknowledged.edit).toBeGreaterThan(0);
    expect(json.writes.acknowledged.delete).toBeGreaterThan(0);
    expect(json.writes.lost).toEqual([]);
    expect(json.days).toMatchObject({ compared: expect.any(Number), wrong: [] });
    for (const grant of json.revokedGrants) expect(grant.appShows).toBe('refresh_interrupted');
    expect(json.convergeSeconds).toEqual(expect.any(Number));
    expect(json.crashes).toEqual([]);
  }, 85_000);
});
