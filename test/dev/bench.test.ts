import { describe, expect, it } from 'vitest';
import { devCommandRunner } from '../helpers/dev-command.js';
import { testWorkload } from '../helpers/kinds.js';

describe('npm run bench', () => {
  const runDevCommand = devCommandRunner();
  const workload = testWorkload();

  it('measures a tiny workload, prints the table with every target and writes every metric as JSON', async () => {
    const flags = ['--kind', workload.name, '--users', '2', '--days', '1', '--items', '2', '--clients', '2', '--workers', '1'];
    const { stdout, results: json } = await runDevCommand('src/dev/bench/main.ts', flags, { timeoutMs: 60_000 });

    expect(stdout).toContain(`${workload.name}: 2 users x 1 days x 2 writes, 2 clients, 1 worker(s)`);
    for (const row of [
      'GET /healthz (floor)',
      `${workload.write.route} `,
      workload.bulk?.route ?? 'bulk import',
      'drain (workers)',
      'ceiling (direct to sandbox)',
      'upserts per (user, day)',
      'peak RSS: worker 1',
    ]) {
      expect(stdout).toContain(row);
    }
    expect(stdout.match(/^(PASS|MISS|N\/A) /gm)).toHaveLength(7);

    const rates = workload.bulk ? [json.floor, json.ingest, json.batch, json.ceiling] : [json.floor, json.ingest, json.ceiling];
    for (const rate of rates) {
      expect(rate).toEqual({
        count: expect.any(Number),
        seconds: expect.any(Number),
        perSecond: expect.any(Number),
        p50Ms: expect.any(Number),
        p99Ms: expect.any(Number),
      });
    }
    expect(json.ingest.count).toBe(4);
    // Four times the days of the single writes, imported: two users x 4 days x 2 writes.
    expect(json.batch?.count ?? null).toBe(workload.bulk ? 16 : null);
    const { workerCpuMsPerDay, ...drain } = json.drain;
    expect(drain).toEqual({ days: workload.bulk ? 10 : 2, seconds: expect.any(Number), perSecond: expect.any(Number) });
    // Ten days may all arrive before the bench first looks, which leaves none to count the CPU by;
    // and /proc counts CPU in ticks of 10 ms, which the few days after it may not fill.
    expect(workerCpuMsPerDay === null || workerCpuMsPerDay >= 0).toBe(true);
    expect(json.calls).toEqual({ max: 1, mean: 1, naiveMax: 2, naiveMean: 2 });
    expect(json.latency).toEqual({ days: 2, p50Ms: expect.any(Number), p99Ms: expect.any(Number) });
    expect(json.signInBurst.count).toBe(10);
    expect(Object.keys(json.peakRssMb)).toEqual(['web', 'sandbox', 'worker 1']);
    for (const peak of Object.values(json.peakRssMb)) expect(peak).toBeGreaterThan(10);
    expect(json.targets).toHaveLength(7);
  }, 65_000);

  it.skipIf(workload.bulk === undefined)(
    'plays a tiny launch: prints each run with its targets and writes its figures as JSON',
    async () => {
      const flags = [
        '--scenario',
        'launch',
        '--kind',
        workload.name,
        '--users',
        '3',
        '--days',
        '40',
        '--active',
        '2',
        '--rate',
        '40',
        '--workers',
        '1',
      ];
      const { stdout, results: json } = await runDevCommand('src/dev/bench/main.ts', flags, { timeoutMs: 90_000 });

      expect(stdout).toContain('3 people x 40 days of history, 2 logging now, 40 requests/s, 1 worker(s)');
      expect(stdout.match(/^(PASS|MISS) 1 worker\(s\): /gm)).toHaveLength(3);
      const [run] = json.runs;
      expect(run).toMatchObject({ workers: 1, rate: 40, backlogDays: 120, freshChanges: expect.any(Number) });
      expect(run.freshChanges).toBeGreaterThan(0);
      expect(run.freshBeyondQuietMs).toEqual({ p50: expect.any(Number), p99: expect.any(Number), max: expect.any(Number) });
      // 120 days at 40/s: the floor is 3 s and more, and the drain cannot beat it.
      expect(run.drainSeconds).toBeGreaterThanOrEqual(run.floorSeconds * 0.9);
      expect(run.budgetUse).toBeLessThanOrEqual(1.1);
    },
    95_000,
  );
});
