import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { RELEASE_IF_OWNER } from './redis-lock.js';
import type { RedisConnection } from './redis-target.js';

/**
 * Which requests go first when the budget is short (docs/architecture.md, "Who waits"):
 * - fresh: a person's own change of now, or a page they are looking at;
 * - backfill: history (imports, resyncs, what waited until they connected).
 */
export type Lane = 'fresh' | 'backfill';

/** The right to send one request for one person; release it once the answer is in. */
export interface Permit {
  release(): Promise<void>;
}

export interface RequestBudget {
  /**
   * Waits for the next slot of the shared rate that this lane may have, with the person's lock: no
   * other request of theirs is in flight (from any process) until the permit is released. The
   * caller reads what it sends only then, so a slower request of the other lane can never overtake
   * it with older data. A fresh request waits for the person's other request to end; history gives
   * way instead (undefined: its turn ends, and comes back), so a person's change of now never waits
   * behind their own history either.
   */
  take(lane: 'fresh', userId: number): Promise<Permit>;
  take(lane: Lane, userId: number): Promise<Permit | undefined>;
  /**
   * As take, for a reader with a deadline: undefined, with nothing booked, when the slot this lane
   * may have (after a pause, say) or the end of the person's other request lies more than
   * `withinMs` from now. Waiting past its deadline would be of no use to it.
   */
  takeWithin(lane: Lane, userId: number, withinMs: number): Promise<Permit | undefined>;
  /** No request of any process starts for this long: the service answered 429 with Retry-After. */
  pause(ms: number): Promise<void>;
}

export interface RequestBudgetSettings {
  redis: RedisConnection;
  prefix: string;
  /** ATHLETE_RATE_LIMIT_PER_S: requests per second to the service, all processes together. */
  ratePerS: number;
  /** How long a person's lock outlives a holder that stopped renewing it (its process died); default 5 s. */
  lockTtlMs?: number;
}

/**
 * How far ahead of now a lane may book a slot. Backfill books only the next slot or so, so a fresh
 * request never has more than that ahead of it; fresh may book a second ahead, so a burst of
 * fresh requests queues in Redis rather than polling. Never below a few ms: at very high rates a
 * slot is shorter than a round trip to Redis.
 */
function horizonUs(lane: Lane, intervalUs: number): number {
  const backfill = Math.max(intervalUs, 50_000);
  return lane === 'backfill' ? backfill : backfill + 1_000_000;
}

/**
 * Paces requests as evenly spaced slots (a GCRA-style schedule): `KEYS[1]` holds when the next slot
 * starts, in microseconds of Redis's own clock, so every process and host shares one schedule.
 * `KEYS[2]` is the person's lock. Answers {1, ms until the slot} when granted (the lock now held),
 * {0, ms to wait} when the lane may not book that far ahead, {-1, ms} while another request of the
 * person is in flight.
 */
const TAKE_SLOT = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= ARGV[3] then
  return {-1, redis.call('PTTL', KEYS[2])}
end
local start = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
local ahead = start - now
if ahead > tonumber(ARGV[2]) then
  return {0, math.ceil((ahead - tonumber(ARGV[2])) / 1000)}
end
local following = math.floor(start + tonumber(ARGV[1]))
redis.call('SET', KEYS[1], string.format('%.0f', following), 'PX', math.ceil((following - now) / 1000) + 1000)
redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
return {1, math.floor(ahead / 1000)}
`;

/** Moves the next slot to at least `ARGV[1]` ms from now. */
const PAUSE = `
local clock = redis.call('TIME')
local resume = tonumber(clock[1]) * 1000000 + tonumber(clock[2]) + tonumber(ARGV[1]) * 1000
if resume > tonumber(redis.call('GET', KEYS[1]) or '0') then
  redis.call('SET', KEYS[1], string.format('%.0f', resume), 'PX', tonumber(ARGV[1]) + 1000)
end
return 0
`;

/** Extends the person's lock while `ARGV[1]` still holds it. */
const RENEW_IF_OWNER = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

const GRANTED = 1;
const TOO_FAR_AHEAD = 0;
const PERSON_BUSY = -1;
/** How often a request waiting for the person's other request looks again. */
const BUSY_POLL_MS = 10;
const DEFAULT_LOCK_TTL_MS = 5000;

/** Runs `send` (which reads what it sends, then sends it) under a permit, released whatever happens. */
export async function underPermit<T>(permit: Permit, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } finally {
    await permit.release();
  }
}

/** The scripts as commands of the connection: ioredis sends each by its SHA (EVALSHA), the text only when Redis lacks it. */
interface BudgetCommands {
  budgetTakeSlot(schedule: string, person: string, intervalUs: number, horizonUs: number, owner: string, lockTtlMs: number): Promise<[number, number]>;
  budgetPause(schedule: string, ms: number): Promise<number>;
  budgetRenew(person: string, owner: string, lockTtlMs: number): Promise<number>;
  budgetRelease(person: string, owner: string): Promise<number>;
}

function withBudgetCommands(redis: RedisConnection): RedisConnection & BudgetCommands {
  redis.defineCommand('budgetTakeSlot', { lua: TAKE_SLOT, numberOfKeys: 2 });
  redis.defineCommand('budgetPause', { lua: PAUSE, numberOfKeys: 1 });
  redis.defineCommand('budgetRenew', { lua: RENEW_IF_OWNER, numberOfKeys: 1 });
  redis.defineCommand('budgetRelease', { lua: RELEASE_IF_OWNER, numberOfKeys: 1 });
  return redis as RedisConnection & BudgetCommands;
}

export function createRequestBudget({ redis: connection, prefix, ratePerS, lockTtlMs = DEFAULT_LOCK_TTL_MS }: RequestBudgetSettings): RequestBudget {
  const redis = withBudgetCommands(connection);
  const intervalUs = 1_000_000 / ratePerS;
  const scheduleKey = `${prefix}:budget:next-slot`;
  const personKey = (userId: number) => `${prefix}:budget:sending:${userId}`;
  // Waiters woken together by the same answer would all ask again at once: a little jitter spreads them.
  const jitterMs = () => Math.random() * Math.min(intervalUs / 1000, 20);

  async function take(lane: Lane, userId: number, withinMs = Number.POSITIVE_INFINITY): Promise<Permit | undefined> {
    const owner = randomUUID();
    const key = personKey(userId);
    const laneHorizonUs = horizonUs(lane, intervalUs);
    const giveUpAt = performance.now() + withinMs;
    for (;;) {
      const leftUs = (giveUpAt - performance.now()) * 1000;
      const [answer, ms] = await redis.budgetTakeSlot(scheduleKey, key, intervalUs, Math.floor(Math.min(laneHorizonUs, Math.max(leftUs, 0))), owner, lockTtlMs);
      if (answer === GRANTED) return holdLock(key, owner, ms);
      if (answer === PERSON_BUSY && lane === 'backfill') return undefined;
      // Asked with the deadline as its horizon, the slot lies past the deadline.
      if (answer === TOO_FAR_AHEAD && leftUs <= laneHorizonUs) return undefined;
      const waitMs = answer === TOO_FAR_AHEAD ? ms + jitterMs() : Math.min(Math.max(ms, 1), BUSY_POLL_MS);
      if (performance.now() + waitMs >= giveUpAt) return undefined;
      await sleep(waitMs);
    }
  }

  return {
    take: ((lane: Lane, userId: number) => take(lane, userId)) as RequestBudget['take'],
    takeWithin: take,

    async pause(ms) {
      await redis.budgetPause(scheduleKey, Math.ceil(ms));
    },
  };

  /**
   * Waits for the granted slot, keeping the person's lock alive meanwhile and for as long as the
   * request runs (a lease: a holder that dies stops renewing it, and it frees within lockTtlMs).
   */
  async function holdLock(key: string, owner: string, slotInMs: number): Promise<Permit> {
    const renewal = setInterval(() => {
      redis.budgetRenew(key, owner, lockTtlMs).catch(() => {
        // Redis away: the lock lapses, as it would for a dead holder; the request itself goes on.
      });
    }, lockTtlMs / 2);
    renewal.unref();
    if (slotInMs > 0) await sleep(slotInMs);
    return {
      release: async () => {
        clearInterval(renewal);
        await redis.budgetRelease(key, owner);
      },
    };
  }
}
