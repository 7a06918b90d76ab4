import { performance } from 'node:perf_hooks';
import { sql, type Transaction } from 'kysely';
import type { Database, Db } from '../../../db/database.js';
import { migrateToLatest } from '../../../db/migrate.js';
import type { DateRange, KindWorkload, UserIdRange } from '../../../kinds/workload.js';
import { dateDaysAgo } from '../dates.js';
import { timeConcurrently } from '../measure.js';

/**
 * The launch's backlog, written straight into a Postgres store in set operations (INSERT … SELECT
 * generate_series), as the app itself leaves it once every person has signed up and imported their
 * history of one write a day (meals.ts's import, outbox.ts's markHistoryDirty, history.ts's
 * noteHistory): a user each, the kind's rows, an outbox entry per day in the history lane (version
 * 1, never sent), and a history of that many entries in the rotation. The connections are not
 * here: their tokens are the sandbox's of each run (grants.ts).
 */

/** People written per statement: a few hundred thousand rows, seconds each, with progress between. */
const PEOPLE_PER_STATEMENT = 1000;
/** Ranges of people written at once, each in a transaction of its own: the server's cores share the work. */
const WRITERS = 3;
/** The bench's own note of the backlog it wrote, so that a later run can tell it from someone's data. */
const BACKLOG_NOTE = 'launch_scale_backlog';

export interface BacklogSize {
  people: number;
  days: number;
  kind: string;
}

export interface Backlog extends BacklogSize {
  /** The imported days, the newest yesterday. */
  dates: DateRange;
  /** How long writing it took, in seconds; null when a backlog of this size was there already. */
  builtInS: number | null;
}

/** The athlete each backlog person is at the sandbox, by user id. */
export const backlogAthlete = (userId: number) => `launch-person-${userId}`;

/**
 * Migrates the store and writes the backlog into it, user ids 1 to `people`. A store holding this
 * bench's backlog of the same size is used as it stands (as far as earlier runs sent it), without
 * the people those runs signed up; any other
 * store with people in it is refused, since the backlog's user ids would collide with theirs.
 */
export async function prepareBacklog(
  db: Db,
  workload: KindWorkload,
  size: BacklogSize,
  progress: (line: string) => void,
): Promise<Backlog> {
  await migrateToLatest(db);
  const dates = { first: dateDaysAgo(size.days), last: dateDaysAgo(1) };
  const existing = await backlogNoted(db);
  if (existing !== undefined) {
    if (existing.people === size.people && existing.days === size.days && existing.kind === size.kind) {
      progress(`the store holds this backlog already (${size.people} people x ${size.days} days of ${size.kind}): used as it stands`);
      // The people an earlier run signed up, with everything of theirs (the foreign keys cascade).
      await db.deleteFrom('users').where('id', '>', size.people).execute();
      return { ...size, dates, builtInS: null };
    }
    throw new Error(
      `the store holds another backlog (${existing.people} people x ${existing.days} days of ${existing.kind}): give an empty database`,
    );
  }
  const { count } = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  if (Number(count) > 0) throw new Error('the store has people in it already: give an empty database, which the scenario fills');
  const started = performance.now();
  await writeBacklog(db, workload, size.people, dates, progress);
  await withoutTimeout(db, async (trx) => {
    await sql`create table ${sql.table(BACKLOG_NOTE)} (people integer not null, days integer not null, kind text not null)`.execute(trx);
    await sql`insert into ${sql.table(BACKLOG_NOTE)} values (${size.people}, ${size.days}, ${size.kind})`.execute(trx);
  });
  return { ...size, dates, builtInS: (performance.now() - started) / 1000 };
}

async function backlogNoted(db: Db): Promise<BacklogSize | undefined> {
  const { rows } = await sql<{ present: boolean }>`select to_regclass(${BACKLOG_NOTE}) is not null as present`.execute(db);
  if (!rows[0]?.present) return undefined;
  const noted = await sql<BacklogSize>`select people, days, kind from ${sql.table(BACKLOG_NOTE)}`.execute(db);
  return noted.rows[0];
}

async function writeBacklog(db: Db, workload: KindWorkload, people: number, dates: DateRange, progress: (line: string) => void) {
  const now = new Date();
  const started = performance.now();
  const ranges = Array.from({ length: Math.ceil(people / PEOPLE_PER_STATEMENT) }, (_, index) => ({
    first: index * PEOPLE_PER_STATEMENT + 1,
    last: Math.min((index + 1) * PEOPLE_PER_STATEMENT, people),
  }));
  let written = 0;
  await timeConcurrently(ranges, WRITERS, async (range) => {
    await withoutTimeout(db, (trx) => writePeople(trx, workload, range, dates, now));
    written += range.last - range.first + 1;
    progress(`backlog: ${written} of ${people} people written (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  });
  await withoutTimeout(db, async (trx) => {
    // Sign-ups after the backlog take the ids after it.
    await sql`select setval(pg_get_serial_sequence('users', 'id'), ${people})`.execute(trx);
    // As autovacuum would have by the time anyone looks: the planner weighs the tables as they are.
    await sql`analyze`.execute(trx);
  });
}

/** One range of people, each with everything their sign-up and import wrote. */
async function writePeople(trx: Transaction<Database>, workload: KindWorkload, people: UserIdRange, dates: DateRange, now: Date) {
  const at = now.toISOString();
  const persons = sql`generate_series(${people.first}::integer, ${people.last}::integer) as person`;
  const days = sql`generate_series(${dates.first}::date, ${dates.last}::date, interval '1 day') as day`;
  await sql`
    insert into users (id, email, password_hash, timezone, created_at)
    select person, 'launch-person-' || person || '@example.com', '!', 'UTC', ${at} from ${persons}`.execute(trx);
  await workload.insertImported!(trx, people, dates, now);
  await sql`
    insert into outbox (user_id, kind, subject, version, updated_at)
    select person, ${workload.syncKind}, to_char(day, 'YYYY-MM-DD'), 1, ${at} from ${persons}, ${days}
    order by person, day`.execute(trx);
  await sql`
    insert into histories (user_id, started_at, total, last_turn_at)
    select person, ${at}, ${dayCount(dates)}, ${at} from ${persons}`.execute(trx);
}

const dayCount = ({ first, last }: DateRange) => Math.round((Date.parse(last) - Date.parse(first)) / 86_400_000) + 1;

/** The app's statement timeout is for its own statements; the bench's write hundreds of thousands of rows each. */
function withoutTimeout<T>(db: Db, run: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`set local statement_timeout = 0`.execute(trx);
    return run(trx);
  });
}
