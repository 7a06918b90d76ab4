import { hasCapability } from '../connections/capabilities.js';
import { findConnection } from '../connections/connection.repository.js';
import type { Db } from '../db/database.js';
import { mealsOfDay } from '../nutrition/meal.repository.js';
import { nutritionRecord } from '../nutrition/day-record.js';
import type { ServiceApi } from '../provider/api.js';
import { ServiceError } from '../provider/service-error.js';
import { dirtyVersion, markFailed, markSynced, recordPendingReason, type DayKey } from './outbox.js';

export interface SyncDayDependencies {
  db: Db;
  api: ServiceApi;
  clock: () => Date;
}

export type SyncDayOutcome = 'clean' | 'synced' | 'changed-meanwhile' | 'waiting-for-connection' | 'failed';

export const WAITING_FOR_CONNECTION = 'Waiting for the connection to the Athlete Data Service (Connect or Reconnect).';

/**
 * Sends one dirty day to the service: the whole day, rebuilt from the store now. The version is
 * read before the items, so an edit racing this job is either in the record or leaves the day
 * dirty for the next run. Permanent refusals mark the day failed; retryable failures are thrown
 * for the queue to retry; days of users who cannot be synced now wait, still dirty.
 */
export async function syncDay({ db, api, clock }: SyncDayDependencies, day: DayKey): Promise<SyncDayOutcome> {
  const version = await dirtyVersion(db, day);
  if (version === undefined) return 'clean';

  const connection = await findConnection(db, day.userId);
  if (connection?.status !== 'connected' || !hasCapability(connection.scopes, day.kind)) {
    await recordPendingReason(db, day, WAITING_FOR_CONNECTION, clock());
    return 'waiting-for-connection';
  }

  try {
    await api.upsertNutrition(day.userId, nutritionRecord(day.date, await mealsOfDay(db, day.userId, day.date)));
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    if (error.kind === 'permanent') {
      await markFailed(db, day, version, error.message, clock());
      return 'failed';
    }
    await recordPendingReason(db, day, error.kind === 'needs-reconnect' ? WAITING_FOR_CONNECTION : error.message, clock());
    if (error.kind === 'needs-reconnect') return 'waiting-for-connection';
    throw error;
  }
  return (await markSynced(db, day, version, clock())) ? 'synced' : 'changed-meanwhile';
}
