import { describe, expect, it } from 'vitest';
import { parseChaosFlags } from '../../../src/dev/chaos/flags.js';
import { DEFAULT_WORKLOAD_KIND } from '../../../src/dev/workloads.js';

describe('npm run chaos flags', () => {
  it('read kebab-case flags into their settings over the defaults', () => {
    expect(parseChaosFlags(['--restart-every', '5', '--converge-seconds', '30', '--seed=-2'])).toEqual({
      ok: true,
      flags: {
        kind: DEFAULT_WORKLOAD_KIND,
        users: 8,
        days: 4,
        clients: 4,
        workers: 2,
        seconds: 30,
        restartEvery: 5,
        convergeSeconds: 30,
        seed: -2,
        results: 'bench/results',
      },
    });
  });

  it('refuse a bad one in one line naming it', () => {
    expect(parseChaosFlags(['--restart-every', '0'])).toEqual({ ok: false, problem: '--restart-every must be at least 1' });
    expect(parseChaosFlags(['--users', 'abc'])).toEqual({ ok: false, problem: '--users must be a whole number' });
    expect(parseChaosFlags(['--users', '0x10'])).toEqual({ ok: false, problem: '--users must be a whole number' });
    expect(parseChaosFlags(['--seed', ''])).toEqual({ ok: false, problem: '--seed must be a whole number' });
    expect(parseChaosFlags(['--seed', '1e400'])).toEqual({ ok: false, problem: '--seed must be a whole number' });
    expect(parseChaosFlags(['--results', ''])).toEqual({ ok: false, problem: '--results must name a folder' });
    expect(parseChaosFlags(['--kind', 'sleep-scores'])).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/^--kind must name a kind with a workload/),
    });
  });
});
