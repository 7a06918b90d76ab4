import { describe, expect, it } from 'vitest';
import { parseBenchFlags } from '../../../src/dev/bench/flags.js';

describe("the bench's flags", () => {
  it('defaults to 60 users x 10 days x 5 items from 16 clients with one worker', () => {
    expect(parseBenchFlags([])).toEqual({
      ok: true,
      flags: { users: 60, days: 10, items: 5, clients: 16, workers: 1, results: 'bench/results' },
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
