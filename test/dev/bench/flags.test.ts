import { describe, expect, it } from 'vitest';
import { parseBenchFlags } from '../../../src/dev/bench/flags.js';
import { DEFAULT_WORKLOAD_KIND, WORKLOADS } from '../../../src/dev/workloads.js';

describe("the bench's flags", () => {
  it('defaults to the first kind with a workload, 60 users x 10 days x 5 writes from 16 clients with one worker', () => {
    expect(parseBenchFlags([])).toEqual({
      ok: true,
      flags: { kind: DEFAULT_WORKLOAD_KIND, users: 60, days: 10, items: 5, clients: 16, workers: 1, results: 'bench/results' },
    });
  });

  it('drives any kind with a workload, and refuses another name', () => {
    for (const { name } of WORKLOADS) expect(parseBenchFlags(['--kind', name])).toMatchObject({ ok: true, flags: { kind: name } });
    expect(parseBenchFlags(['--kind', 'sleep-scores'])).toEqual({
      ok: false,
      problem: `--kind must name a kind with a workload: ${WORKLOADS.map((workload) => workload.name).join(', ')}`,
    });
  });

  it('reads each flag as a whole number', () => {
    const parsed = parseBenchFlags(['--users', '3', '--days', '2', '--items', '4', '--clients', '8', '--workers', '2']);
    expect(parsed).toMatchObject({ ok: true, flags: { users: 3, days: 2, items: 4, clients: 8, workers: 2 } });
  });

  it('profiles the web process or the workers when asked, and nothing else', () => {
    expect(parseBenchFlags(['--profile', 'web'])).toMatchObject({ ok: true, flags: { profile: 'web' } });
    expect(parseBenchFlags(['--profile', 'worker'])).toMatchObject({ ok: true, flags: { profile: 'worker' } });
    expect(parseBenchFlags(['--profile', 'sandbox'])).toEqual({ ok: false, problem: '--profile must be web or worker' });
  });

  it('refuses an unknown flag or a count below one with one line', () => {
    expect(parseBenchFlags(['--users', '0'])).toEqual({ ok: false, problem: '--users must be at least 1' });
    expect(parseBenchFlags(['--clients', '2.5'])).toEqual({ ok: false, problem: '--clients must be a whole number' });
    expect(parseBenchFlags(['--nope'])).toMatchObject({ ok: false, problem: expect.stringContaining("'--nope'") });
  });
});
