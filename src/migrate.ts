import { loadDatabaseConfig, readEnvironment } from './config.js';
import { migrateToLatest, openForMigrations } from './db/migrate.js';
import { runEntryPoint } from './entry-point.js';

runEntryPoint(async () => {
  const db = openForMigrations(loadDatabaseConfig(readEnvironment()));
  const applied = await migrateToLatest(db);
  await db.destroy();
  console.log(applied.length === 0 ? 'The database is up to date.' : `Applied: ${applied.join(', ')}`);
});
