import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { RELEASE_IF_OWNER } from '../redis/redis-lock.js';
import type { RedisConnection } from '../redis/redis-target.js';

/**
 * The sync's two lanes (docs/architecture.md, "Who waits"):
 * - fresh: a person's own change of now;
 * - history: history (imports, resyncs, what waited until they connected).
 */
export type Lane = 'fresh' | 'history';

/**
 * Which requests go first when the budget is short: fresh, then reads (what a person waits for on
 * a page: the workouts list), never more than their share of the rate, then history.
 */
export type BudgetLane = Lane | 'read';

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
  take(lane: BudgetLane, userId: number): Promise<Permit | undefined>;
  /**
   * As take, for a reader with a deadline: undefined, with nothing booked, when the slot this lane
   * may have (after a pause, say) or the end of the person's other request lies more than
   * `withinMs` from now. Waiting past its deadline would be of no use to it.
   */
  takeWithin(lane: BudgetLane, userId: number, withinMs: number): Promise<Permit | undefined>;
  /** No request of any process starts for this long: the service answered 429 with Retry-After. */
  pause(ms: number): Promise<void>;
}

export interface RequestBudgetSettings {
  redis: RedisConnection;
  prefix: string;
  /** ATHLETE_RATE_LIMIT_PER_S: requests per second to the service, all processes together. */
  ratePerS: number;
  /** ATHLETE_READ_SHARE: the most of that rate reads may take, from 0.01 to 0.5; default a quarter. */
  readShare?: number;
  /** How long a person's lock outlives a holder that stopped renewing it (its process died); default 5 s. */
  lockTtlMs?: number;
  /** How long history waiting in line keeps its place without asking again; default 2 s. */
  waiterTtlMs?: number;
}

/**
 * How far ahead of now a lane may book a slot. History books only the next slot or so; a read one
 * more, so that it goes ahead of history; so a fresh request never has more than those two ahead
 * of it. Fresh may book a second ahead, so a burst of fresh requests queues in Redis rather than
 * polling. Never below a few ms: at very high rates a slot is shorter than a round trip to Redis.
 */
function horizonUs(lane: BudgetLane, intervalUs: number): number {
  const history = Math.max(intervalUs, 50_000);
  return { fresh: history + 1_000_000, read: 2 * history, history }[lane];
}

/**
 * Paces requests as evenly spaced slots (a GCRA-style schedule): `KEYS[1]` holds when the next slot
 * starts, in microseconds of Redis's own clock, so every process and host shares one schedule.
 * `KEYS[2]` is the person's lock. Answers {1, ms until the slot} when granted (the lock now held),
 * {0, ms to wait} when the lane may not book that far ahead, {-1, ms} while another request of the
 * person is in flight, {2, ms to wait} while reads have had their share.
 *
 * ARGV[5] is the lane. History (`history`) also waits in line: `KEYS[3]` ranks its waiters by
 * arrival, `KEYS[4]` by when each was last heard of (every ask renews it, so a waiter whose process
 * died is dropped within ARGV[6] ms). A waiter counts the slots of those ahead of it as booked
 * already, so while slots are short they go in the order their turns began to wait, whichever
 * process asks; without the line, waiters woken together race for each slot and those of a busier
 * process lose more often. Fresh requests do not queue: they go ahead of history within their
 * horizon.
 *
 * Reads (`read`) do not queue either, and have a schedule of their own beside the shared one,
 * `KEYS[5]`: the earliest slot the next read may have, `ARGV[7]` µs after the last read's (the
 * interval over the reads' share). So reads together take at most their share of the slots,
 * however many people read, and history keeps the rest of what fresh requests leave.
 */
const TAKE_SLOT = `
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
local interval, horizon, owner = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local queued, read = ARGV[5] == 'history', ARGV[5] == 'read'
local function leave_line()
  redis.call('ZREM', KEYS[3], owner)
  redis.call('ZREM', KEYS[4], owner)
end
local holder = redis.call('GET', KEYS[2])
if holder and holder ~= owner then
  if queued then leave_line() end
  return {-1, redis.call('PTTL', KEYS[2])}
end
local start = math.max(now, tonumber(redis.call('GET', KEYS[1]) or '0'))
local ahead = start - now
if queued then
  local waiter_ttl = tonumber(ARGV[6])
  local dead = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now)
  for _, waiter in ipairs(dead) do redis.call('ZREM', KEYS[3], waiter) end
  redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now)
  redis.call('ZADD', KEYS[3], 'NX', now, owner)
  redis.call('ZADD', KEYS[4], now + waiter_ttl * 1000, owner)
  redis.call('PEXPIRE', KEYS[3], waiter_ttl * 2)
  redis.call('PEXPIRE', KEYS[4], waiter_ttl * 2)
  ahead = ahead + redis.call('ZRANK', KEYS[3], owner) * interval
end
if ahead > horizon then
  return {0, math.ceil((ahead - horizon) / 1000)}
end
if read then
  local next_read = tonumber(redis.call('GET', KEYS[5]) or '0')
  if next_read > start then return {2, math.ceil((next_read - start) / 1000)} end
  local read_after = math.floor(start + tonumber(ARGV[7]))
  redis.call('SET', KEYS[5], string.format('%.0f', read_after), 'PX', math.ceil((read_after - now) / 1000) + 1000)
end
local following = math.floor(start + interval)
redis.call('SET', KEYS[1], string.format('%.0f', following), 'PX', math.ceil((following - now) / 1000) + 1000)
redis.call('SET', KEYS[2], owner, 'PX', ARGV[4])
if queued then leave_line() end
return {1, math.floor((start - now) / 1000)}
`;

/** Takes `ARGV[1]` out of history's line (`KEYS[1]` by arrival, `KEYS[2]` by when last heard of). */
const LEAVE_LINE = `redis.call('ZREM', KEYS[1], ARGV[1]) redis.call('ZREM', KEYS[2], ARGV[1]) return 0`;

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
const READS_AT_THEIR_SHARE = 2;
/** How often a request waiting for the person's other request looks again. */
const BUSY_POLL_MS = 10;
const DEFAULT_LOCK_TTL_MS = 5000;
/** A history waiter not heard of for this long (its process died) loses its place in the queue. */
const DEFAULT_WAITER_TTL_MS = 2000;
/** A quarter of the rate for reads: a person waits for them, but never at the cost of history's pace. */
const DEFAULT_READ_SHARE = 0.25;

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
  budgetTakeSlot(
    schedule: string,
    person: string,
    waitersByArrival: string,
    waitersByLastHeard: string,
    nextRead: string,
    intervalUs: number,
    horizonUs: number,
    owner: string,
    lockTtlMs: number,
    lane: BudgetLane,
    waiterTtlMs: number,
    readIntervalUs: number,
  ): Promise<[number, number]>;
  budgetLeaveLine(waitersByArrival: string, waitersByLastHeard: string, owner: string): Promise<number>;
  budgetPause(schedule: string, ms: number): Promise<number>;
  budgetRenew(person: string, owner: string, lockTtlMs: number): Promise<number>;
  budgetRelease(person: string, owner: string): Promise<number>;
}

function withBudgetCommands(redis: RedisConnection): RedisConnection & BudgetCommands {
  redis.defineCommand('budgetTakeSlot', { lua: TAKE_SLOT, numberOfKeys: 5 });
  redis.defineCommand('budgetLeaveLine', { lua: LEAVE_LINE, numberOfKeys: 2 });
  redis.defineCommand('budgetPause', { lua: PAUSE, numberOfKeys: 1 });
  redis.defineCommand('budgetRenew', { lua: RENEW_IF_OWNER, numberOfKeys: 1 });
  redis.defineCommand('budgetRelease', { lua: RELEASE_IF_OWNER, numberOfKeys: 1 });
  return redis as RedisConnection & BudgetCommands;
}

export function createRequestBudget({
  redis: connection,
  prefix,
  ratePerS,
  readShare = DEFAULT_READ_SHARE,
  lockTtlMs = DEFAULT_LOCK_TTL_MS,
  waiterTtlMs = DEFAULT_WAITER_TTL_MS,
}: RequestBudgetSettings): RequestBudget {
  const redis = withBudgetCommands(connection);
  const intervalUs = 1_000_000 / ratePerS;
  const readIntervalUs = intervalUs / readShare;
  const scheduleKey = `${prefix}:budget:next-slot`;
  const nextReadKey = `${prefix}:budget:next-read-slot`;
  const lineKeys = [`${prefix}:budget:history-by-arrival`, `${prefix}:budget:history-by-last-heard`] as const;
  // History in line asks again at least this often, well within the time it keeps its place.
  const maxQueuedPollMs = waiterTtlMs / 4;
  const personKey = (userId: number) => `${prefix}:budget:sending:${userId}`;
  // Waiters woken together by the same answer would all ask again at once: a little jitter spreads them.
  const jitterMs = () => Math.random() * Math.min(intervalUs / 1000, 20);

  async function take(lane: BudgetLane, userId: number, withinMs = Number.POSITIVE_INFINITY): Promise<Permit | undefined> {
    const owner = randomUUID();
    const key = personKey(userId);
    const laneHorizonUs = horizonUs(lane, intervalUs);
    const queued = lane === 'history';
    const giveUpAt = performance.now() + withinMs;
    const giveUp = async () => {
      if (queued) await redis.budgetLeaveLine(...lineKeys, owner);
      return undefined;
    };
    for (;;) {
      const leftUs = (giveUpAt - performance.now()) * 1000;
      const horizon = Math.floor(Math.min(laneHorizonUs, Math.max(leftUs, 0)));
      const [answer, ms] = await redis.budgetTakeSlot(
        scheduleKey,
        key,
        ...lineKeys,
        nextReadKey,
        intervalUs,
        horizon,
        owner,
        lockTtlMs,
        lane,
        waiterTtlMs,
        readIntervalUs,
      );
      if (answer === GRANTED) return holdLock(key, owner, ms);
      // History gives way to the person's other request; the script has taken it out of the line.
      if (answer === PERSON_BUSY && lane === 'history') return undefined;
      // Asked with the deadline as its horizon, the slot lies past the deadline.
      if (answer === TOO_FAR_AHEAD && leftUs <= laneHorizonUs) return giveUp();
      const waitMs = waitBeforeAskingAgain(answer, ms);
      if (performance.now() + waitMs >= giveUpAt) return giveUp();
      await sleep(waitMs);
    }
  }

  function waitBeforeAskingAgain(answer: number, ms: number): number {
    if (answer === TOO_FAR_AHEAD) return Math.min(ms + jitterMs(), maxQueuedPollMs);
    // The next read's slot is known: readers woken for it at once would race, hence the jitter.
    if (answer === READS_AT_THEIR_SHARE) return ms + jitterMs();
    return Math.min(Math.max(ms, 1), BUSY_POLL_MS);
  }

  return {
    take: ((lane: BudgetLane, userId: number) => take(lane, userId)) as RequestBudget['take'],
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
