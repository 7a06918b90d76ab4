import { loadTokenKeysConfig, readEnvironment } from './config.js';
import { resealAllTokens, type ResealSummary } from './connections/reseal.js';
import { createTokenCipher } from './connections/token-crypto.js';
import { createDb } from './db/database.js';
import { assertMigrated } from './db/migrate.js';
import { runEntryPoint } from './entry-point.js';
import { createLogger } from './logger.js';

function summaryLine({ resealed, alreadyCurrent, unreadable }: ResealSummary): string {
  const counts = `Resealed ${resealed}, already current ${alreadyCurrent}, unreadable ${unreadable}`;
  return unreadable === 0
    ? `${counts}: every stored token is sealed with the current key.`
    : `${counts}: the unreadable connections now need reconnecting.`;
}

/** `npm run reseal`: every stored token sealed again with TOKEN_ENCRYPTION_KEY (docs/production.md, rotating the token key). */
runEntryPoint(async () => {
  const config = loadTokenKeysConfig(readEnvironment());
  // The summary is the one line on stdout; log lines (which user needs reconnecting) go to stderr.
  const logger = createLogger(config.logLevel, 'reseal', process.stderr);
  const db = createDb(config.database);
  try {
    await assertMigrated(db);
    const cipher = createTokenCipher(config.tokenEncryption.key, config.tokenEncryption.previousKeys);
    console.log(summaryLine(await resealAllTokens(db, cipher, () => new Date(), logger)));
  } finally {
    await db.destroy();
  }
});
