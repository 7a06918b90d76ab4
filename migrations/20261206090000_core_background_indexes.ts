import { sql, type Kysely } from 'kysely';

/**
 * Indexes for the workers' background reads, so that none of them reads a whole table however many
 * entries the outbox holds (docs/architecture.md, "Background reads"):
 * - `outbox_waiting`: only the entries that must still be sent, by kind, for the metrics' waiting
 *   counts. Its condition is written as needsSending (src/sync/outbox.ts) writes it: a database
 *   uses a partial index only for a query whose conditions include the index's.
 * - `outbox_retries_scheduled`: only the entries with a retry scheduled, forgotten when Redis lost the queue.
 * - `outbox_fresh` replaces `outbox_by_fresh_at`: only the fresh lane's entries, not the millions
 *   of history and synced ones, so the fresh poller's planner sees how few they are.
 * - `histories_in_turn_order` replaces `histories_by_last_turn_at`: the rotation's whole order, so a
 *   rebuild's page from its cursor is a range of the index.
 */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('outbox_waiting')
    .on('outbox')
    .columns(['kind', 'updated_at'])
    .where((eb) =>
      eb.and([
        eb.or([eb(sql.ref('synced_version'), 'is', null), eb(sql.ref('synced_version'), '<', sql.ref('version'))]),
        eb.or([eb(sql.ref('failed_version'), 'is', null), eb(sql.ref('failed_version'), '<', sql.ref('version'))]),
      ]),
    )
    .execute();
  await db.schema
    .createIndex('outbox_retries_scheduled')
    .on('outbox')
    .column('next_attempt_at')
    .where(sql.ref('next_attempt_at'), 'is not', null)
    .execute();
  await db.schema.createIndex('outbox_fresh').on('outbox').column('fresh_at').where(sql.ref('fresh_at'), 'is not', null).execute();
  await db.schema.dropIndex('outbox_by_fresh_at').execute();
  await db.schema.createIndex('histories_in_turn_order').on('histories').columns(['last_turn_at', 'user_id']).execute();
  await db.schema.dropIndex('histories_by_last_turn_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('histories_by_last_turn_at').on('histories').column('last_turn_at').execute();
  await db.schema.dropIndex('histories_in_turn_order').execute();
  await db.schema.createIndex('outbox_by_fresh_at').on('outbox').column('fresh_at').execute();
  await db.schema.dropIndex('outbox_fresh').execute();
  await db.schema.dropIndex('outbox_retries_scheduled').execute();
  await db.schema.dropIndex('outbox_waiting').execute();
}
