import { sql, type Kysely } from 'kysely';

/**
 * Two lanes for what waits to be sent (docs/architecture.md, "Who waits"). `outbox.fresh_at` is when a
 * person's own change, not yet in the service, was made: such an entry is sent ahead of every
 * history. `backfills` has one row per person with history waiting: when that history began, how
 * many entries it has had, and when the person's last turn ended, which is the order turns are
 * queued in again if the queue is lost. What waits already at this migration is history.
 */
// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('outbox').addColumn('fresh_at', 'text').execute();
  await db.schema.createIndex('outbox_by_fresh_at').on('outbox').column('fresh_at').execute();
  await db.schema
    .createTable('backfills')
    .addColumn('user_id', 'integer', (column) => column.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('started_at', 'text', (column) => column.notNull())
    .addColumn('total', 'integer', (column) => column.notNull())
    .addColumn('last_turn_at', 'text', (column) => column.notNull())
    .execute();
  await db.schema.createIndex('backfills_by_last_turn_at').on('backfills').column('last_turn_at').execute();
  await db
    .insertInto('backfills')
    .columns(['user_id', 'started_at', 'total', 'last_turn_at'])
    .expression((eb) =>
      eb
        .selectFrom('outbox')
        .select([
          'user_id',
          sql<string>`min(updated_at)`.as('started_at'),
          sql<number>`count(*)`.as('total'),
          sql<string>`min(updated_at)`.as('last_turn_at'),
        ])
        .where((row) =>
          row.and([
            row.or([row('synced_version', 'is', null), row('synced_version', '<', row.ref('version'))]),
            row.or([row('failed_version', 'is', null), row('failed_version', '<', row.ref('version'))]),
          ]),
        )
        .groupBy('user_id'),
    )
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('backfills').execute();
  await db.schema.dropIndex('outbox_by_fresh_at').execute();
  await db.schema.alterTable('outbox').dropColumn('fresh_at').execute();
}
