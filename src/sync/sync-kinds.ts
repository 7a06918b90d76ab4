import type { z } from 'zod';
import { SYNCED_KINDS } from '../kinds.js';

/**
 * The kinds the sync path sends: those of src/kinds.ts with a `sync` part, each with the subject
 * its outbox entries are keyed by (a daily kind's is the person's local date). The outbox, queue,
 * worker and sweeper take every kind as it is, by its name.
 *
 * The one import here that runs upward, from the sync path to the list of kinds (whose kinds use
 * the outbox): it is read only when these functions are called, never while the modules load, so
 * the circle it closes is harmless (test/import-cycles.test.ts allows this one).
 */
export type SyncKind = string;

/** The names of the kinds this version sends: an entry of another kind (one removed since) is never sent. */
export function syncKinds(): SyncKind[] {
  return SYNCED_KINDS.map((kind) => kind.name);
}

/** The kinds whose subject is the person's local date. */
export function dailyKinds(): SyncKind[] {
  return SYNCED_KINDS.filter((kind) => kind.sync.daily).map((kind) => kind.name);
}

export function isDailyKind(kind: SyncKind): boolean {
  return dailyKinds().includes(kind);
}

/** What the subject of an entry of `kind` must be; undefined for a kind this version does not send. */
export function subjectSchemaOf(kind: SyncKind): z.ZodType<string> | undefined {
  return SYNCED_KINDS.find((each) => each.name === kind)?.sync.subject;
}
