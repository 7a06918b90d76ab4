import type { WellnessRecord } from '../provider/api.js';
import type { Measurements } from './wellness.schemas.js';

/**
 * The service's wellness record for one local day (section 2.3), rebuilt from the store when the
 * job runs: `date` and the measurements the person entered, none other (an absent one is left out,
 * never sent as null), and in rawJson what they entered, kept by the service for reference.
 */
export function wellnessRecord(date: string, measurements: Measurements): WellnessRecord {
  return { date, ...measurements, rawJson: { source: 'athlete-sync', ...measurements } };
}
