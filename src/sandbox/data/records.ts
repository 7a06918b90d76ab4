import { randomUUID } from 'node:crypto';
import type { StoredRecord } from '../state.js';

/**
 * Section 4.7 rule 1: a record sent again for the same key replaces the stored one; no duplicate.
 * `writes` counts the upserts that hit the record.
 */
export function upsertRecord<Payload>(
  records: Map<string, StoredRecord<Payload>>,
  key: string,
  payload: Payload,
  now: string,
): { record: StoredRecord<Payload>; created: boolean } {
  const existing = records.get(key);
  if (existing) {
    existing.payload = payload;
    existing.receivedAt = now;
    existing.writes += 1;
    return { record: existing, created: false };
  }
  const record: StoredRecord<Payload> = { id: randomUUID(), payload, createdAt: now, receivedAt: now, writes: 1 };
  records.set(key, record);
  return { record, created: true };
}
