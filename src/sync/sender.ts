import type { ActivityFiles } from '../activities/activity-file-store.js';
import type { Db } from '../db/database.js';
import type { ServiceApi } from '../provider/api.js';
import type { OutboxKey } from './outbox.js';

export interface SendDependencies {
  db: Db;
  api: ServiceApi;
  clock: () => Date;
  /** Where the bytes of .fit activities are, and whether they are kept after upload. */
  activityFiles: ActivityFiles;
}

/**
 * How one kind's entry reaches the service: its record is rebuilt from the store at send time,
 * so whatever version is sent is whole. `gone` when the subject was deleted here meanwhile
 * (there is nothing to send). Failures are thrown as ServiceError.
 */
export interface Sender {
  send(deps: SendDependencies, key: OutboxKey): Promise<'sent' | 'gone'>;
  /** Runs once the entry is clean in the service (e.g. to prune an uploaded file's bytes). */
  afterSynced?(deps: SendDependencies, key: OutboxKey): Promise<void>;
}
