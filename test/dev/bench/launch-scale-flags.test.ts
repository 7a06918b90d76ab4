import { describe, expect, it } from 'vitest';
import { LAUNCH_SCALE_KIND, parseLaunchScaleFlags } from '../../../src/dev/bench/launch-scale/flags.js';
import { WORKLOADS } from '../../../src/dev/workloads.js';

const POSTGRES = 'postgres://postgres@127.0.0.1:5432/launch';
const scenario = (...args: string[]) => ['--scenario', 'launch-scale', ...args];

/** An app without a kind that can fill a backlog (a partner's copy) cannot run the scenario: see the last test. */
describe.runIf(LAUNCH_SCALE_KIND !== undefined)("the launch-scale scenario's flags", () => {
  it('defaults to 10,000 people x 365 days, 10 writing now, 200 requests/s, 2 workers, 3 minutes scraped every 15 s, in full', () => {
    expect(parseLaunchScaleFlags(scenario('--postgres', POSTGRES), {})).toEqual({
      ok: true,
      flags: {
        scenario: 'launch-scale',
        kind: LAUNCH_SCALE_KIND,
        people: 10000,
        days: 365,
        active: 10,
        rate: 200,
        workers: 2,
        minutes: 3,
        scrapeS: 15,
        mode: 'full',
        postgres: POSTGRES,
        results: 'bench/results',
      },
    });
  });

  it('takes the database from BENCH_POSTGRES_URL, the flag over it', () => {
    expect(parseLaunchScaleFlags(scenario(), { BENCH_POSTGRES_URL: POSTGRES })).toMatchObject({ ok: true, flags: { postgres: POSTGRES } });
    const other = 'postgresql://elsewhere/launch';
    expect(parseLaunchScaleFlags(scenario('--postgres', other), { BENCH_POSTGRES_URL: POSTGRES })).toMatchObject({
      ok: true,
      flags: { postgres: other },
    });
  });

  it('refuses to run without a Postgres database, saying how to give one', () => {
    expect(parseLaunchScaleFlags(scenario(), {})).toEqual({
      ok: false,
      problem: '--postgres must name the Postgres database to fill (postgres://…), or BENCH_POSTGRES_URL be set',
    });
    expect(parseLaunchScaleFlags(scenario('--postgres', 'sqlite:launch.db'), {})).toEqual({
      ok: false,
      problem: '--postgres must be a postgres:// URL',
    });
  });

  it('reads the sizes as whole numbers, and the queries alone when asked', () => {
    const parsed = parseLaunchScaleFlags(
      scenario('--postgres', POSTGRES, '--people', '100000', '--days', '30', '--minutes', '1', '--scrape-s', '5', '--mode', 'queries'),
      {},
    );
    expect(parsed).toMatchObject({ ok: true, flags: { people: 100000, days: 30, minutes: 1, scrapeS: 5, mode: 'queries' } });
  });

  it('refuses another mode, a count below one, more than 2000 days or an unknown flag with one line', () => {
    const problem = (...args: string[]) => parseLaunchScaleFlags(scenario('--postgres', POSTGRES, ...args), {});
    expect(problem('--mode', 'drain')).toEqual({ ok: false, problem: '--mode must be full or queries' });
    expect(problem('--people', '0')).toEqual({ ok: false, problem: '--people must be at least 1' });
    expect(problem('--days', '2001')).toEqual({ ok: false, problem: '--days must be at most 2000' });
    expect(problem('--users', '5')).toMatchObject({ ok: false, problem: expect.stringContaining("'--users'") });
  });
});

describe.runIf(LAUNCH_SCALE_KIND === undefined)('the launch-scale scenario in an app without a kind that can fill a backlog', () => {
  it('refuses to run, saying what a kind needs', () => {
    expect(WORKLOADS.every((workload) => workload.insertImported === undefined || workload.bulk === undefined)).toBe(true);
    expect(parseLaunchScaleFlags(scenario('--postgres', POSTGRES), {})).toEqual({
      ok: false,
      problem: '--kind must name a kind whose workload can insert imported rows and has a bulk import, and no registered kind has both',
    });
  });
});
