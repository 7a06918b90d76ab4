import type { OutboxKey } from './outbox.js';
import type { SyncKind } from './sync-kinds.js';

/**
 * How one kind's entry reaches the service: its record is rebuilt from the store at send time,
 * so whatever version is sent is whole. `gone` when the subject was deleted here meanwhile
 * (there is nothing to send). Failures are thrown as ServiceError. Each kind's sender is built with
 * what that kind needs (senders.ts); the sync path hands it only the entry.
 */
export interface Sender {
  send(key: OutboxKey): Promise<'sent' | 'gone'>;
  /** Runs once the entry is clean in the service (e.g. to prune an uploaded file's bytes). */
  afterSynced?(key: OutboxKey): Promise<void>;
}

export type Senders = Record<SyncKind, Sender>;
