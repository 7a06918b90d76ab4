import { activities } from './activities/index.js';
import type { Kind, SyncedKind } from './kinds/kind.js';
import { nutrition } from './nutrition/index.js';
import { wellness } from './wellness/index.js';
import { workouts } from './workouts/index.js';

/**
 * The kinds this app has (kinds/kind.ts), in the order the pages, the navigation, the dashboard and
 * the export show them. A kind's folder is added or removed with its line here; nothing else in the
 * shared app names a kind.
 */
export const KINDS: readonly Kind[] = [nutrition, wellness, activities, workouts];

/** The kinds the app keeps in the service through the outbox. */
export const SYNCED_KINDS: readonly SyncedKind[] = KINDS.filter((kind): kind is SyncedKind => kind.sync !== undefined);

/** The kinds' own groups of settings, in the order of the kinds: the entry points give them to config.ts. */
export const KIND_SETTING_GROUPS = KINDS.flatMap((kind) => kind.settings ?? []);
