import { describe, expect, it } from 'vitest';
import { parseFlags } from '../../../src/dev/bench/flags.js';

describe("the bench's flags", () => {
  it('defaults to 60 users x 10 days x 5 items from 16 clients with one worker', () => {
    expect(parseFlags([])).toEqual({
      ok: true,
      flags: { users: 60, days: 10, items: 5, clients: 16, workers: 1, results: 'bench/results' },
    });
  });

  it('reads each flag as a whole number', () => {
    const parsed = parseFlags(['--users', '3', '--days', '2', '--items', '4', '--clients', '8', '--workers', '2']);
    expect(parsed).toMatchObject({ ok: true, flags: { users: 3, days: 2, items: 4, clients: 8, workers: 2 } });
  });

  it('refuses an unknown flag or a count below one with one line', () => {
    expect(parseFlags(['--users', '0'])).toEqual({ ok: false, problem: '--users must be at least 1' });
    expect(parseFlags(['--clients', '2.5'])).toEqual({ ok: false, problem: '--clients must be a whole number' });
    expect(parseFlags(['--nope'])).toMatchObject({ ok: false, problem: expect.stringContaining("'--nope'") });
  });
});
