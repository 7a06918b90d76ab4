import type { Router } from 'express';
import type { Transaction } from 'kysely';
import type { z } from 'zod';
import type { RequestBudget } from '../budget/request-budget.js';
import type { WebConfig, WorkerConfig } from '../config.js';
import type { SettingGroup } from '../config/setting.js';
import type { DateStyle } from '../dates/date-style.js';
import type { Database, Db } from '../db/database.js';
import type { FieldSet } from '../fields/numeric-field.js';
import type { Logger } from '../logger.js';
import type { ServiceApi } from '../provider/api.js';
import type { Scope } from '../provider/scopes.js';
import type { RedisConnection } from '../redis/redis-target.js';
import type { EntrySyncStatus } from '../sync/sync-statuses.js';
import type { SyncQueues } from '../sync/queue.js';
import type { Sender } from '../sync/sender.js';
import type { FormProtection } from '../web/csrf.js';
import type { RenderPage } from '../web/pages.js';
import type { KindWorkload } from './workload.js';

/**
 * A kind: one thing the app does for a person with the service (its nutrition, its wellness, its
 * activities, the list of its workouts), written as one folder under src/ whose index.ts exports
 * one declaration of this shape. src/kinds.ts lists the declarations; the shared app (the web app,
 * the worker, the dashboard, the account's export and deletion, the tools) reads each kind only
 * through them, and never imports a kind's folder. Adding a kind is a folder and a line in
 * src/kinds.ts; removing one is deleting them (with its views, tests and end-to-end tests: views/,
 * test/ and test/e2e/ folders of its name).
 *
 * Two sorts of kinds share this shape. A kind the app keeps in the service has a `sync` part: its
 * changes go through the outbox, and a sender sends them. A read feature (the workouts list) has
 * none: it only reads from the service for a person who waits, so it brings pages and a scope but
 * nothing for the outbox, the workers or the sync overview. One shape with an optional part, rather
 * than two lists, keeps "every kind" one list for the pages, the navigation, the scopes asked for
 * and the account's export and deletion, which both sorts have.
 */
export interface Kind {
  /** The kind's name: its folder, its capability's id, and (for a synced kind) the outbox's `kind`. */
  name: string;
  /** What the dashboard and the mails call it: "Nutrition". */
  title: string;
  /** What it lets the app do, in words, beside the scope on the dashboard: "Nutrition: daily meals and their items". */
  label: string;
  /** The scope of the service (interface document, section 5) the kind needs: the app asks for the scopes of its kinds. */
  scope: Scope;
  /** The kind's page, where the person uses it, and its entry in the pages' navigation. */
  page: { path: string; navLabel: string };
  /** Its routes, built with what the web process has. */
  web(deps: KindWebDependencies): KindRoutes;
  /** Its part of the account: the rows of a person it exports, and deletes with the account. */
  account: KindAccountPart;
  /**
   * Its own settings (config/setting.ts), listed in the configuration table after the shared app's,
   * parsed with them by the processes that read them; the kind reads its part with
   * `config.kindSettings.of(group)`.
   */
  settings?: readonly SettingGroup[];
  /**
   * Its own rules for how its pages look, a file under views/ ("wellness/wellness.css"), linked
   * from every page after the shared stylesheet (web/kind-stylesheets.ts).
   */
  stylesheet?: string;
  /** The fields a client may send, for `npm run fields`; none for a kind without declared fields. */
  fieldSets?: readonly FieldSet[];
  /** Present for a kind the app keeps in the service through the outbox. */
  sync?: KindSyncPart;
  /** How the bench, the chaos run and the infrastructure tests drive the kind (kinds/workload.ts), for a kind that has one. */
  workload?: KindWorkload;
  /** What it shows on the dashboard, for a kind that sums the person's data up there. */
  dashboard?: KindDashboardPart;
  /** A line `npm run demo` prints to help a person try the kind, such as where a sample file is. */
  demoHint?: () => string;
}

/**
 * A kind's summary on the dashboard (the week's energy of nutrition): its own partial view, and
 * what that view shows, read for the signed-in person. The dashboard shows each registered kind's, in
 * the order of src/kinds.ts.
 */
export interface KindDashboardPart {
  /** Its partial view, under views/: "nutrition/week-summary". */
  view: string;
  /** What the view is given, read with reads bounded by the person's own rows. */
  load(request: KindDashboardRequest): Promise<Record<string, unknown>>;
}

/** What the dashboard gives a kind to read its summary: the person, the time, and how their pages write dates. */
export interface KindDashboardRequest {
  db: Db;
  user: { id: number; timezone: string };
  now: Date;
  style: DateStyle;
}

/** A kind whose changes the app sends to the service. */
export type SyncedKind = Kind & { sync: KindSyncPart };

/** What the outbox, the workers and the sync overview need of a kind they send. */
export interface KindSyncPart {
  /**
   * What its outbox entries are keyed by, checked before an entry is sent (a subject no entry can
   * have is refused there, never sent): a local date for a daily kind, an id of this app otherwise.
   */
  subject: z.ZodType<string>;
  /** Whether its subject is the person's local date (a day of the kind); history and resync work by days. */
  daily: boolean;
  /** What the connection mails call the kind's data when it stops being sent: "meals". */
  inWords: string;
  /** Its sender, built with what the worker process has. */
  sender(deps: KindWorkerDependencies): Sender;
  /**
   * For a kind not keyed by date: its newest entries in GET /api/sync/status, under `field`, with
   * where each one's sync stands (a daily kind's entries are the answer's `days`).
   */
  status?: { field: string; entries(db: Db, userId: number): Promise<unknown[]> };
  /** How the dashboard's sync overview names an entry of the kind, and where it links to. */
  overview: EntryPresentation;
}

/** How the sync overview shows a kind's entries. */
export interface EntryPresentation {
  /** Names the entries: read what it needs for all of them at once, then one name per entry. */
  labeller(db: Db, userId: number, entries: EntrySyncStatus[], style: DateStyle): Promise<(entry: EntrySyncStatus) => string>;
  /** Where an entry is on the kind's pages. */
  href(entry: EntrySyncStatus): string;
}

/** The routes of a kind, mounted by app.ts in the order of src/kinds.ts. */
export interface KindRoutes {
  /**
   * Routes that read their own request bodies (a multipart upload, a JSON body larger than the
   * API's 100 kB), and check a form's token themselves: mounted before the shared body parsers.
   */
  ownBodies?: Router;
  /** Its JSON API, under /api, behind the JSON-only guard. */
  api?: Router;
  /** Its pages, behind the forms' token check. */
  pages?: Router;
}

/** A person's rows of a kind, in the account's export and its deletion. */
export interface KindAccountPart {
  /**
   * The kind's fields of the export (accounts/account-export.ts), as JSON pieces, each starting
   * with a comma: `exportField` and `exportArray` (accounts/export-pieces.ts) write them.
   */
  exportOf(db: Db, userId: number): AsyncGenerator<string>;
  /** Deletes the person's rows of the kind, within the deletion's transaction, before the shared tables. */
  eraseOf(trx: Transaction<Database>, userId: number): Promise<void>;
}

/** What the web process gives a kind to build its routes. */
export interface KindWebDependencies {
  config: WebConfig;
  logger: Logger;
  db: Db;
  redis: RedisConnection;
  syncQueues: SyncQueues;
  /** The service's data API, for what a page reads from it while the person waits. */
  serviceApi: ServiceApi;
  /** Paces those reads with the workers' requests. */
  budget: RequestBudget;
  renderPage: RenderPage;
  forms: FormProtection;
  clock: () => Date;
}

/** What the worker process gives a kind to build its sender. */
export interface KindWorkerDependencies {
  config: WorkerConfig;
  db: Db;
  api: ServiceApi;
}
