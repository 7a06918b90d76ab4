import { CompiledQuery, sql, type Transaction } from 'kysely';
import { connectedConnectionsAfter } from '../../../connections/connection.repository.js';
import { KEEP_ALIVE_BATCH } from '../../../connections/keep-alive.js';
import type { Database, Db } from '../../../db/database.js';
import { peopleInTurnOrder } from '../../../sync/history.js';
import { ROTATION_HEAD_SIZE } from '../../../sync/rotation.js';
import { freshEntriesDue, historyEntries, historyWaiting, nextFreshChangeAfter, peopleWithFreshChangesDue } from '../../../sync/lanes.js';
import { forgetScheduledRetries } from '../../../sync/outbox.js';
import { syncKinds } from '../../../sync/sync-kinds.js';
import { waitingEntries } from '../../../sync/sync-statuses.js';
import { recordingStatements } from '../../recorded-statements.js';
import { percentile } from '../measure.js';

/**
 * How long the statements the workers run in the background take on the backlog, and those of one
 * person's turn: each run by the app's own function, every statement it sends timed by the
 * database itself (EXPLAIN ANALYZE, in a transaction rolled back, so that a write changes nothing).
 * pg_stat_statements would time them as the app runs them, but it needs a server started with it
 * preloaded; where it is, the scenario reads it too (statementStats).
 */

/** Each statement runs this many times; the median is reported, the first run having found the cache cold. */
const RUNS = 3;
const SLOW_MS = 1000;

export interface StatementTime {
  name: string;
  /** The database's own execution time, the median of the runs, in ms. */
  ms: number;
  /** Of the first run, before the pages it reads were cached. */
  firstMs: number;
}

interface Statement {
  name: string;
  run: (db: Db) => Promise<unknown>;
}

/** The background statements, and a turn's, for a person half way through the rotation and the ids (`middleUserId`). */
function statementsAt(middleUserId: number, now: Date): Statement[] {
  const kinds = syncKinds();
  const dueBefore = new Date(now.getTime() - 1000);
  return [
    { name: "metrics: the waiting counts (a scrape's)", run: (db) => waitingEntries(db) },
    { name: 'fresh poller: people with changes due', run: (db) => peopleWithFreshChangesDue(db, dueBefore, now, 1000) },
    { name: 'fresh poller: the next change', run: (db) => nextFreshChangeAfter(db, dueBefore) },
    { name: 'sweeper: the head of the rotation', run: (db) => peopleInTurnOrder(db, ROTATION_HEAD_SIZE) },
    { name: 'rebuild: forgetting the scheduled retries', run: (db) => forgetScheduledRetries(db) },
    { name: 'keep-alive: the first page', run: (db) => connectedConnectionsAfter(db, 0, KEEP_ALIVE_BATCH) },
    { name: 'keep-alive: a page half way', run: (db) => connectedConnectionsAfter(db, middleUserId, KEEP_ALIVE_BATCH) },
    { name: "history turn: the person's next entries", run: (db) => historyEntries(db, middleUserId, kinds, 50) },
    { name: "history turn: the person's entries left", run: (db) => historyWaiting(db, middleUserId, kinds) },
    { name: "fresh turn: the person's changes due", run: (db) => freshEntriesDue(db, middleUserId, kinds, dueBefore, 20) },
  ];
}

/** Times every statement; `middleUserId` names a person with history waiting. */
export async function timeStatements(db: Db, middleUserId: number): Promise<StatementTime[]> {
  const times: StatementTime[] = [];
  for (const statement of statementsAt(middleUserId, new Date())) {
    const sent = await statementsOf(db, statement);
    for (const [index, compiled] of sent.entries()) {
      const first = await executionMs(db, compiled);
      const runs = [first];
      // One that takes seconds is timed once: its figure is what matters, not its spread.
      while (first < SLOW_MS && runs.length < RUNS) runs.push(await executionMs(db, compiled));
      const name = sent.length === 1 ? statement.name : `${statement.name} (${index + 1})`;
      times.push({
        name,
        ms: percentile(
          runs.toSorted((a, b) => a - b),
          0.5,
        ),
        firstMs: first,
      });
    }
  }
  return times;
}

/** The statements the function sends, run once in a transaction rolled back. */
async function statementsOf(db: Db, statement: Statement): Promise<CompiledQuery[]> {
  let sent: CompiledQuery[] = [];
  await inRolledBackTransaction(db, async (trx) => {
    const recording = recordingStatements(trx);
    await statement.run(recording.db);
    sent = recording.statements;
  });
  return sent;
}

class RolledBack extends Error {}

/**
 * Runs `run` in a transaction that is then rolled back, without the app's statement timeout: a
 * statement that outlasts it at this size is timed, not cut off.
 */
async function inRolledBackTransaction(db: Db, run: (trx: Transaction<Database>) => Promise<unknown>): Promise<void> {
  await db
    .transaction()
    .execute(async (trx) => {
      await sql`set local statement_timeout = 0`.execute(trx);
      await run(trx);
      throw new RolledBack();
    })
    .catch((error: unknown) => {
      if (!(error instanceof RolledBack)) throw error;
    });
}

/** The statement's execution time as Postgres measured it, its writes undone. */
async function executionMs(db: Db, statement: CompiledQuery): Promise<number> {
  let ms = Number.NaN;
  await inRolledBackTransaction(db, async (trx) => {
    const explained = CompiledQuery.raw(`explain (analyze, format json) ${statement.sql}`, [...statement.parameters]);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': Array<{ 'Execution Time': number }> }>(explained);
    ms = rows[0]!['QUERY PLAN'][0]!['Execution Time'];
  });
  return ms;
}

export interface StatementStat {
  query: string;
  calls: number;
  meanMs: number;
  maxMs: number;
}

/**
 * The app's statements on the outbox, the histories and the connections as pg_stat_statements
 * counted them since `resetStatementStats`, slowest mean first; undefined where the server does
 * not have it loaded (shared_preload_libraries).
 */
export async function statementStats(db: Db): Promise<StatementStat[] | undefined> {
  try {
    const { rows } = await sql<{ query: string; calls: string; mean_exec_time: number; max_exec_time: number }>`
      select query, calls, mean_exec_time, max_exec_time from pg_stat_statements
      where dbid = (select oid from pg_database where datname = current_database())
        and (query like '%"outbox"%' or query like '%"histories"%' or query like '%"connections"%')
      order by mean_exec_time desc limit 20`.execute(db);
    return rows.map((row) => ({ query: row.query, calls: Number(row.calls), meanMs: row.mean_exec_time, maxMs: row.max_exec_time }));
  } catch {
    return undefined;
  }
}

/** Starts pg_stat_statements' counts afresh, where it is loaded. */
export async function resetStatementStats(db: Db): Promise<void> {
  try {
    await sql`create extension if not exists pg_stat_statements`.execute(db);
    await sql`select pg_stat_statements_reset()`.execute(db);
  } catch {
    // Not loaded on this server: EXPLAIN ANALYZE stands in.
  }
}
