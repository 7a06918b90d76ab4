import { describe, expect, it } from 'vitest';
import { devCommandRunner } from '../helpers/dev-command.js';

describe('npm run bench', () => {
  const runDevCommand = devCommandRunner();

  it('measures a tiny workload, prints the table with every target and writes every metric as JSON', async () => {
    const flags = ['--users', '2', '--days', '1', '--items', '2', '--clients', '2', '--workers', '1'];
    const { stdout, results: json } = await runDevCommand('src/dev/bench/main.ts', flags, { timeoutMs: 60_000 });

    expect(stdout).toContain('2 users x 1 days x 2 items, 2 clients, 1 worker(s)');
    for (const row of ['GET /healthz (floor)', 'POST /api/meals ', 'POST /api/meals/batch', 'drain (workers)', 'ceiling (direct to sandbox)', 'upserts per (user, day)', 'peak RSS: worker 1']) {
      expect(stdout).toContain(row);
    }
    expect(stdout.match(/^(PASS|MISS|N\/A) /gm)).toHaveLength(7);

    for (const rate of [json.floor, json.ingest, json.batch, json.ceiling]) {
      expect(rate).toEqual({ count: expect.any(Number), seconds: expect.any(Number), perSecond: expect.any(Number), p50Ms: expect.any(Number), p99Ms: expect.any(Number) });
    }
    expect(json.ingest.count).toBe(4);
    expect(json.batch.count).toBe(16);
    expect(json.drain).toEqual({ days: 10, seconds: expect.any(Number), perSecond: expect.any(Number) });
    expect(json.calls).toEqual({ max: 1, mean: 1, naiveMax: 2, naiveMean: 2 });
    expect(json.latency).toEqual({ days: 2, p50Ms: expect.any(Number), p99Ms: expect.any(Number) });
    expect(json.signInBurst.count).toBe(10);
    expect(Object.keys(json.peakRssMb)).toEqual(['web', 'sandbox', 'worker 1']);
    for (const peak of Object.values(json.peakRssMb)) expect(peak).toBeGreaterThan(10);
    expect(json.targets).toHaveLength(7);
  }, 65_000);
});
