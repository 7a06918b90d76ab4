import { writeRunResults } from '../run-results.js';
import type { ChaosFlags } from './flags.js';
import type { WriteSort } from '../../kinds/workload.js';

export interface PhaseResult {
  signal: 'SIGTERM' | 'SIGKILL';
  redisRestarts: number;
  workerRestarts: number;
  /** The longest a stopped worker took to exit. */
  longestStopS: number;
  /** The sandbox's refresh-token reuse detections during the phase. */
  reuses: number;
  revokedGrants: number;
}

export interface RevokedGrant {
  athlete: string;
  /** Why the sandbox revoked it. */
  sandboxReason: string | null;
  /** What the app shows its user (GET /api/me), null while it shows them connected. */
  appShows: string | null;
}

export interface ChaosResults {
  flags: ChaosFlags;
  phases: PhaseResult[];
  writes: { acknowledged: Record<WriteSort, number>; unacknowledged: Record<string, number>; signInsAgain: number; lost: string[] };
  days: { compared: number; wrong: string[]; heldBack: number };
  /** The sandbox's reuse detections over the whole run: a refresh a kill interrupted is settled up to a lease later, after its phase. */
  reusesInAll: number;
  revokedGrants: RevokedGrant[];
  notConnected: { email: string; athlete: string; reason: string }[];
  /** From the end of the workload and the faults; null when it did not converge in time. */
  convergeSeconds: number | null;
  crashes: string[];
}

export interface Target {
  name: string;
  met: boolean;
  detail: string;
}

/** An interrupted refresh is the one cause of a revocation chaos allows, and only with SIGKILL stops. */
const INTERRUPTED = 'refresh_interrupted';

export function targets(results: ChaosResults): Target[] {
  const gentle = results.phases.filter((phase) => phase.signal === 'SIGTERM');
  const unexplained = results.revokedGrants.filter((grant) => grant.appShows !== INTERRUPTED);
  const revokedAthletes = new Set(results.revokedGrants.map((grant) => grant.athlete));
  const unexplainedUsers = results.notConnected.filter((user) => !revokedAthletes.has(user.athlete) || user.reason !== INTERRUPTED);
  return [
    { name: 'acknowledged writes lost', met: results.writes.lost.length === 0, detail: results.writes.lost.slice(0, 5).join('; ') },
    { name: 'days wrong or missing', met: results.days.wrong.length === 0, detail: results.days.wrong.slice(0, 5).join('; ') },
    {
      name: 'no reuse with SIGTERM stops and the Redis restart',
      met: gentle.every((phase) => phase.reuses === 0 && phase.revokedGrants === 0),
      detail: gentle.map((phase) => `${phase.reuses} reuses, ${phase.revokedGrants} revoked`).join('; '),
    },
    {
      name: 'every revoked grant shown as an interrupted refresh',
      met: unexplained.length === 0,
      detail: unexplained.map((grant) => `${grant.athlete}: the app shows ${grant.appShows ?? 'connected'}`).join('; '),
    },
    {
      name: 'every user not connected is explained',
      met: unexplainedUsers.length === 0,
      detail: unexplainedUsers.map((user) => `${user.email}: ${user.reason}`).join('; '),
    },
    { name: 'converged', met: results.convergeSeconds !== null, detail: results.convergeSeconds === null ? 'timed out' : '' },
    { name: 'no process crashed', met: results.crashes.length === 0, detail: results.crashes.join('; ') },
  ];
}

export function table(results: ChaosResults): string {
  const { flags, writes, days } = results;
  const acknowledged = writes.acknowledged.add + writes.acknowledged.edit + writes.acknowledged.delete;
  const unacknowledged = Object.entries(writes.unacknowledged).map(([answer, count]) => `${count} ${answer}`);
  const phases = results.phases.map(
    (phase) =>
      `phase ${phase.signal}${phase.redisRestarts > 0 ? ' + Redis restarted empty' : ''}`.padEnd(40) +
      `| ${phase.workerRestarts} worker restarts (longest stop ${phase.longestStopS.toFixed(1)} s), ${phase.reuses} refresh-token reuses, ${phase.revokedGrants} revoked grants`,
  );
  const rows: [string, string][] = [
    [
      'acknowledged writes',
      `${acknowledged} (${writes.acknowledged.add} adds, ${writes.acknowledged.edit} edits, ${writes.acknowledged.delete} deletes); unacknowledged: ${unacknowledged.join(', ') || 'none'}; ${writes.signInsAgain} sign-ins again`,
    ],
    ['acknowledged writes lost', String(writes.lost.length)],
    ['days wrong or missing', `${days.wrong.length} of ${days.compared} compared; ${days.heldBack} held back (user not connected)`],
    [
      'refresh-token reuses',
      `${results.phases.map((phase) => `${phase.signal} ${phase.reuses}`).join(', ')}; ${results.reusesInAll} in all, with those after the workload`,
    ],
    [
      'revoked grants',
      `${results.revokedGrants.length}` +
        results.revokedGrants
          .map((grant) => `; ${grant.athlete} (${grant.sandboxReason}), the app shows ${grant.appShows ?? 'connected'}`)
          .join(''),
    ],
    [
      'users not connected',
      `${results.notConnected.length}` + results.notConnected.map((user) => `; ${user.email} (${user.reason})`).join(''),
    ],
    [
      'seconds to converge',
      results.convergeSeconds === null ? `did not within ${flags.convergeSeconds}` : results.convergeSeconds.toFixed(1),
    ],
    ['process crashes', results.crashes.length === 0 ? 'none' : results.crashes.join('; ')],
  ];
  const verdicts = targets(results).map(
    (target) => `${target.met ? 'PASS' : 'MISS'} ${target.name}${target.met || !target.detail ? '' : `: ${target.detail}`}`,
  );
  return [
    `chaos: ${flags.kind}, ${flags.users} users x ${flags.days} days, ${flags.clients} clients, ${flags.workers} workers, 2 phases x ${flags.seconds} s, a worker restarted every ${flags.restartEvery} s, seed ${flags.seed}`,
    ...phases,
    ...rows.map(([name, value]) => `${name.padEnd(40)}| ${value}`),
    '',
    ...verdicts,
  ].join('\n');
}

export function writeResults(results: ChaosResults, startedAt: Date, directory: string): Promise<string> {
  return writeRunResults(directory, 'chaos-', startedAt, { ...results, targets: targets(results) });
}
