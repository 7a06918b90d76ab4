import type { Db } from '../db/database.js';
import type { Scope } from '../provider/scopes.js';
import type { SyncKind } from '../sync/sync-kinds.js';

/**
 * A kind's workload: what the bench, the chaos run and the infrastructure tests need to drive one
 * kind over the app's own HTTP API as a person would, and to check what reached the service (the
 * sandbox). Each kind that has one declares it in its own folder; the tools take it from the list
 * of kinds and never name a kind themselves, so that they keep working whichever kinds a partner
 * keeps.
 */
export interface KindWorkload {
  /** The kind's name, as `--kind` and TEST_KIND give it. */
  name: string;
  /** The outbox's kind of the entries its writes make; each entry's subject is a local date. */
  syncKind: SyncKind;
  /** The scope the service requires to receive its records (§3), which a plain client asks for. */
  scope: Scope;
  /** The service's path its day records are upserted at (§4.5, §4.6); the sandbox counts `POST <path>`. */
  servicePath: string;
  /** One change to one of the person's days. */
  write: SingleWrite;
  /** Many days in one request, for a kind whose API has a bulk import. */
  bulk?: BulkImport;
  /**
   * What the app holds for the person on each of `dates`, each day in the comparable form of
   * `ServiceDay.content`; a day holding nothing is absent. Throws when the app does not answer 200.
   */
  appDays(client: AppClient, dates: readonly string[]): Promise<Map<string, unknown>>;
  /** Every day record the sandbox holds of this kind, from its `/_sandbox/state` JSON. */
  serviceDays(sandboxState: unknown): ServiceDay[];
  /**
   * Whether the service's record of a day (its `content`; undefined: none) is what the app's day
   * (from `appDays`; undefined: the app holds nothing) makes it once sent, for a person connected.
   */
  sentRight(appDay: unknown, serviceDay: unknown): boolean;
  /**
   * The upserts a plain client that sends each change at once makes for one day: one per write,
   * each the day as it then stood, given the app's record of the day after `writes` writes of
   * this workload (the bench's naive integration, which the app's quiet period is compared with).
   */
  recordsWriteByWrite(record: unknown, writes: number): unknown[];
  /** A new chaos ledger for one person, named `person` in its items or values and its problems. */
  chaosLedger(person: string): ChaosLedger;
  /**
   * Writes straight into the kind's own tables, in set operations, the rows the bulk import leaves
   * when each of `people` imports write 0 of every day of `days`, at `now`, living in UTC: a load
   * run's backlog of millions of days, which imports over HTTP would take hours to make. Only the
   * kind's rows: the outbox's and the history lane's are the shared app's. Postgres only.
   */
  insertImported?(db: Db, people: UserIdRange, days: DateRange, now: Date): Promise<void>;
}

/** User ids from `first` to `last`, both included. */
export interface UserIdRange {
  first: number;
  last: number;
}

/** Local dates (YYYY-MM-DD) from `first` to `last`, both included. */
export interface DateRange {
  first: string;
  last: string;
}

/** The part of the app's HTTP client a workload uses: a signed-in person's requests, cookies kept. */
export interface AppClient {
  request(path: string, init?: RequestInit): Promise<Response>;
}

export interface SingleWrite {
  /** The request as the bench's table names it: its method and route pattern (`PUT /api/<kind>/:date`). */
  route: string;
  /**
   * Makes write `n` to the person's `date` and resolves with the app's answer (2xx: acknowledged).
   * Writes to one day differ by `n` (0 first), so that each is a change the app sends.
   */
  send(client: AppClient, date: string, n: number): Promise<Response>;
}

/** One write of a bulk import: write `n` to `date`, as `SingleWrite.send` would make it. */
export interface DayWrite {
  date: string;
  n: number;
}

export interface BulkImport {
  /** The request as the bench's table names it: its method and route pattern. */
  route: string;
  /** The most writes one request may carry with the app's default settings. */
  max: number;
  /** Imports up to `max` writes in one request, all or none, and resolves with the app's answer (2xx: stored). */
  send(client: AppClient, writes: readonly DayWrite[]): Promise<Response>;
}

/** One day record of one athlete as the sandbox holds it. */
export interface ServiceDay {
  athlete: string;
  date: string;
  /** The record as last upserted. */
  record: unknown;
  /** What it holds in the form `appDays` gives, so that the two compare with deep equality. */
  content: unknown;
  /** When the sandbox first and last received it (ms since the epoch), and how many upserts it took. */
  createdAt: number;
  receivedAt: number;
  writes: number;
}

/** How many writes of each sort chaos made. */
export type WriteSort = 'add' | 'edit' | 'delete';

/** A random number from `least` to `most`, both included. */
export type PickNumber = (least: number, most: number) => number;

/**
 * One person's random writes in a chaos run and what their acknowledgements (2xx) say the app must
 * hold. A write that got no acknowledgement (5xx, no answer) may or may not have been applied:
 * what it touched is uncertain until a later acknowledged write settles it, and only what is
 * certain is checked. A 4xx was refused and applied nothing.
 */
export interface ChaosLedger {
  readonly acknowledged: Record<WriteSort, number>;
  /** Writes without acknowledgement, by what came back: a status code, or `no answer`. */
  readonly unacknowledged: Record<string, number>;
  /**
   * One add, edit or delete on one of `dates`, recorded here; resolves with the status it got,
   * undefined when no answer came (refused, reset, timed out). The body of its answer is consumed.
   */
  writeOnce(client: AppClient, dates: readonly string[], pick: PickNumber): Promise<number | undefined>;
  /** Where the app's days (`appDays` over every date written to) disagree with the acknowledged writes, a line each. */
  disagreements(appDays: Map<string, unknown>): string[];
}
