import type { EntrySyncStatus } from '../sync/sync-statuses.js';
import type { EntryPresentation } from './kind.js';

/**
 * The ways of showing entries in the sync overview that kinds share. An entry's id names it in the
 * overview (views/assets/sync-overview.js) and is also the id of its row on its kind's page, for a
 * link's fragment.
 */
export function entryId({ kind, subject }: Pick<EntrySyncStatus, 'kind' | 'subject'>): string {
  return `${kind}-${subject}`;
}

/** An entry named by its date, in the person's style. */
export const byDate: EntryPresentation['labeller'] = async (_db, _userId, _entries, style) => (entry) => style.day(entry.subject);

/** A link to the entry's row on the kind's page `path`. */
export function rowOfPage(path: string): EntryPresentation['href'] {
  return (entry) => `${path}#${entryId(entry)}`;
}
