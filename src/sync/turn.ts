import { performance } from 'node:perf_hooks';
import { lockUser } from '../accounts/user.repository.js';
import { hasCapability } from '../connections/capabilities.js';
import { findConnection, type Connection } from '../connections/connection.repository.js';
import type { Logger } from '../logger.js';
import { ServiceError } from '../provider/service-error.js';
import { underPermit, type Lane, type RequestBudget } from '../budget/request-budget.js';
import { endHistory, recordTurn } from './history.js';
import type { FreshAllowance } from './fresh-allowance.js';
import { sendEntry, type SendEntryDependencies, type SendEntryOutcome } from './send-entry.js';
import { leaveFreshLane, moveToHistory, recordNextAttempt, type DirtyEntry } from './outbox.js';
import { freshEntriesDue, historyEntries, historyWaiting } from './lanes.js';
import { syncKinds, type SyncKind } from './sync-kinds.js';
import { setAsideUnsendableEntries } from './unsendable-entries.js';

/**
 * One person's turn in a lane (docs/architecture.md, "Who waits"): a few of their entries sent, each
 * under a permit of the shared request budget, then what comes next. Plain functions; the queue
 * only calls them (worker.ts).
 */

export interface TurnDependencies extends SendEntryDependencies {
  budget: RequestBudget;
  /** SYNC_FRESH_PER_PERSON_PER_MINUTE: past it, a person's changes of now wait as their history. */
  freshAllowance: FreshAllowance;
  logger: Logger;
}

export interface TurnSettings {
  /** SYNC_QUIET_MS: a fresh change is sent once the person has left it alone this long. */
  quietMs: number;
  /** SYNC_ATTEMPTS: tries a fresh change gets in its lane before it waits with the person's history. */
  freshAttempts: number;
}

/**
 * What the queue does after a turn: nothing, the person's next turn at the back of the lane, a
 * retry after a backoff, or (a fresh change that failed its tries) the person's history turn.
 */
export type TurnNext = { next: 'done' } | { next: 'again'; afterMs?: number } | { next: 'retry'; afterMs: number } | { next: 'history' };

/** How long after the turn the person's next one may run: a backoff, a give-way, or none. */
export function delayOf(next: TurnNext): number {
  return next.next === 'again' || next.next === 'retry' ? (next.afterMs ?? 0) : 0;
}

export interface TurnOutcome {
  sent: number;
  next: TurnNext;
}

/**
 * A history turn ends after this long of its own work or this many entries, whichever comes first,
 * so that people with history take turns in small shares of the budget (fair within seconds), while
 * at a high rate one turn still carries enough entries to make the queue's cost per entry small.
 * Time spent waiting for a permit does not count as work: when many turns share the budget, each
 * waits for most of its time, and counted by the clock a turn would send one or two entries for the
 * fixed cost of a turn (its job, reading the connection and the entries, recording its place).
 * Past HISTORY_TURN_MAX_MS a turn starts no new entry, whatever it waited, so that the rotation
 * keeps moving and a stopping worker's turns end soon.
 */
const HISTORY_TURN_WORK_MS = 250;
const HISTORY_TURN_MAX_MS = 2000;
const HISTORY_TURN_ENTRIES = 50;
/** A fresh turn sends every change of the person that is due, up to this many. */
const FRESH_TURN_ENTRIES = 20;
/** A history turn that gave way to the person's other request comes back after this. */
const GIVE_WAY_MS = 100;
/** Backoff after retryable failures in a row: doubling from 1 s, at most 10 minutes, with jitter. */
const BACKOFF_FIRST_MS = 1000;
const BACKOFF_MAX_MS = 10 * 60 * 1000;

export function backoffMs(failures: number, random = Math.random): number {
  const ceiling = Math.min(BACKOFF_FIRST_MS * 2 ** (failures - 1), BACKOFF_MAX_MS);
  return ceiling * (0.5 + random() / 2);
}

export async function takeTurn(
  deps: TurnDependencies,
  settings: TurnSettings,
  lane: Lane,
  userId: number,
  failures: number,
): Promise<TurnOutcome> {
  const connection = await findConnection(deps.db, userId);
  if (connection?.status !== 'connected') {
    // Connect or Reconnect moves all that waits into history and starts it again (connection-changes.ts).
    await (lane === 'history' ? endHistory(deps.db, userId) : leaveFreshLane(deps.db, userId));
    return { sent: 0, next: { next: 'done' } };
  }
  const granted = syncKinds().filter((kind) => hasCapability(connection.scopes, kind));
  const turn = { ...deps, connection };
  const { run, next } =
    lane === 'fresh' ? await freshTurn(turn, settings, userId, granted, failures) : await historyTurn(turn, userId, granted, failures);
  // For the pages: when the entry that failed is tried again (it goes first in the person's next turn).
  if (run.failed && (next.next === 'retry' || next.next === 'again')) {
    const afterMs = next.next === 'retry' ? next.afterMs : (run.failed.retryAfterMs ?? 0);
    await recordNextAttempt(deps.db, run.failed.entry, new Date(deps.clock().getTime() + afterMs));
  }
  // One line a turn (each entry's is at debug): a drain of thousands of days would otherwise be as many lines.
  deps.logger.info({ userId, lane, sent: run.sent, next: next.next }, 'turn taken');
  return { sent: run.sent, next };
}

interface LaneTurn {
  run: Run;
  next: TurnNext;
}

/** A turn's dependencies with the person's connection, as read when the turn began. */
type OneTurn = TurnDependencies & { connection: Connection };

async function freshTurn(
  deps: OneTurn,
  { quietMs, freshAttempts }: TurnSettings,
  userId: number,
  granted: SyncKind[],
  failures: number,
): Promise<LaneTurn> {
  // A kind the person has not granted waits for their Reconnect, which sends it as history.
  await leaveFreshLane(deps.db, userId, { kinds: syncKinds().filter((kind) => !granted.includes(kind)) });
  const dueBefore = new Date(deps.clock().getTime() - quietMs);
  const allowed = await deps.freshAllowance.left(userId);
  if (allowed === 0) {
    // More changes this minute than anyone makes by hand: the rest share the rate with everyone's history.
    const waiting = await joinHistory(deps, userId, granted, dueBefore);
    return { run: { sent: 0, stoppedEarly: false }, next: { next: waiting ? 'history' : 'done' } };
  }
  const limit = Math.min(allowed, FRESH_TURN_ENTRIES);
  const due = await freshEntriesDue(deps.db, userId, granted, dueBefore, limit);
  const run = await sendEntries(deps, 'fresh', await setAsideUnsendableEntries(deps, due), () => true);
  await deps.freshAllowance.spend(userId, run.sent);
  const next = nextAfter(run, failures, due.length === limit);
  if (next.next === 'retry' && failures + 1 >= freshAttempts) {
    // Still failing after its tries: no longer a change of now. It waits, and is tried again, with the person's history.
    await joinHistory(deps, userId, granted, dueBefore);
    return { run, next: { next: 'history' } };
  }
  return { run, next };
}

/** The person's changes due (made at or before `dueBefore`) become history. Returns whether any history waits. */
async function joinHistory(deps: OneTurn, userId: number, granted: SyncKind[], dueBefore: Date): Promise<boolean> {
  return deps.db.transaction().execute(async (trx) => {
    await lockUser(trx, userId);
    return moveToHistory(trx, userId, deps.clock(), { kinds: granted, changedBefore: dueBefore });
  });
}

async function historyTurn(deps: OneTurn, userId: number, granted: SyncKind[], failures: number): Promise<LaneTurn> {
  const entries = await historyEntries(deps.db, userId, granted, HISTORY_TURN_ENTRIES);
  const run = await sendEntries(
    deps,
    'history',
    await setAsideUnsendableEntries(deps, entries),
    ({ ms, waitingMs }) => ms - waitingMs < HISTORY_TURN_WORK_MS && ms < HISTORY_TURN_MAX_MS,
  );
  const more = run.stoppedEarly || entries.length === HISTORY_TURN_ENTRIES || !(await endHistoryIfSent(deps, userId, granted));
  const next = nextAfter(run, failures, more);
  await recordTurn(deps.db, userId, deps.clock(), delayOf(next));
  return { run, next };
}

interface Run {
  sent: number;
  /** A retryable failure ended the run; a pause the service asked for (429) is in the budget already. */
  failed?: { entry: DirtyEntry; retryAfterMs: number | undefined };
  /** The turn's share ran out before its last entry. */
  stoppedEarly: boolean;
  /** History gave way to the person's request in flight (their change of now, say). */
  gaveWay?: boolean;
}

/** How long a run of sends has lasted, and how much of that it waited for permits. */
interface RunTime {
  ms: number;
  waitingMs: number;
}

/**
 * Sends the entries in order while `goOn(time so far)`, each under its own permit; stops at the
 * first retryable failure, when the connection turned out to need the person (the next turn reads
 * it anew), and, in history, when the person's change of now is being sent (it goes first).
 */
async function sendEntries(deps: OneTurn, lane: Lane, entries: DirtyEntry[], goOn: (time: RunTime) => boolean): Promise<Run> {
  const started = performance.now();
  let waitingMs = 0;
  let sent = 0;
  for (const [index, entry] of entries.entries()) {
    if (index > 0 && !goOn({ ms: performance.now() - started, waitingMs })) return { sent, stoppedEarly: true };
    const asked = performance.now();
    const permit = await deps.budget.take(lane, entry.userId);
    waitingMs += performance.now() - asked;
    if (!permit) return { sent, stoppedEarly: true, gaveWay: true };
    let outcome: SendEntryOutcome;
    try {
      outcome = await underPermit(permit, () => sendEntry(deps, entry, deps.connection));
    } catch (error) {
      if (!(error instanceof ServiceError)) throw error;
      deps.logger.warn({ entry, err: error }, 'entry not synced yet');
      if (error.retryAfterMs !== undefined) await deps.budget.pause(error.retryAfterMs);
      return { sent, failed: { entry, retryAfterMs: error.retryAfterMs }, stoppedEarly: true };
    }
    deps.logger.debug({ entry, outcome }, 'entry processed');
    if (outcome === 'synced' || outcome === 'failed') sent++;
    if (outcome === 'waiting-for-connection') return { sent, stoppedEarly: true };
  }
  return { sent, stoppedEarly: false };
}

/** A 429 spends no try (the budget waits for it); another retryable failure backs off. */
function nextAfter(run: Run, failures: number, more: boolean): TurnNext {
  if (run.failed && run.failed.retryAfterMs === undefined) return { next: 'retry', afterMs: backoffMs(failures + 1) };
  if (run.gaveWay) return { next: 'again', afterMs: GIVE_WAY_MS };
  return run.failed || more ? { next: 'again' } : { next: 'done' };
}

/**
 * Ends the person's history once none of it waits (in turn with their writes: an import committing
 * meanwhile keeps it going). Returns whether it ended.
 */
async function endHistoryIfSent({ db }: TurnDependencies, userId: number, granted: SyncKind[]): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await lockUser(trx, userId);
    if ((await historyWaiting(trx, userId, granted)) > 0) return false;
    await endHistory(trx, userId);
    return true;
  });
}
