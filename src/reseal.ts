import { parseArgs } from 'node:util';
import { z } from 'zod';
import { loadTokenKeysConfig, readEnvironment } from './config.js';
import { resealAllTokens, type ResealSummary } from './connections/reseal.js';
import { createTokenCipher, tokenKeyIdSchema } from './connections/token-crypto.js';
import { createDb } from './db/database.js';
import { assertMigrated } from './db/migrate.js';
import { runEntryPoint } from './entry-point.js';
import { StartupError } from './errors.js';
import { createLogger } from './logger.js';

const USAGE = 'Usage: npm run reseal [-- --forget-key <key id> ...]';

const argumentsSchema = z.object({ 'forget-key': z.array(tokenKeyIdSchema).default([]) });

function readArguments(): z.infer<typeof argumentsSchema> {
  let values: unknown;
  try {
    values = parseArgs({ options: { 'forget-key': { type: 'string', multiple: true } } }).values;
  } catch (error) {
    throw new StartupError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
  }
  const parsed = argumentsSchema.safeParse(values);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `--${String(issue.path[0])} ${issue.message}`);
    throw new StartupError(`${problems.join('; ')}\n${USAGE}`);
  }
  return parsed.data;
}

function summaryLine({ resealed, alreadyCurrent, keyNotConfigured, unreadable }: ResealSummary): string {
  const withoutKey = Object.entries(keyNotConfigured);
  const counts =
    `Resealed ${resealed}, already current ${alreadyCurrent}, ` +
    `key not configured ${withoutKey.reduce((sum, [, count]) => sum + count, 0)}, unreadable ${unreadable}`;
  const outcomes = [
    ...(withoutKey.length > 0
      ? [
          `those whose key is not configured (${withoutKey.map(([keyId, count]) => `key id ${keyId}: ${count}`).join(', ')}) are left as they are; ` +
            'add the key to TOKEN_ENCRYPTION_PREVIOUS_KEYS, or, if it is gone for good, run npm run reseal -- --forget-key <key id> to ask their people to reconnect',
        ]
      : []),
    ...(unreadable > 0 ? ['the unreadable connections now need reconnecting'] : []),
  ];
  return `${counts}: ${outcomes.length > 0 ? outcomes.join('; ') : 'every stored token is sealed with the current key'}.`;
}

/** `npm run reseal`: every stored token sealed again with TOKEN_ENCRYPTION_KEY (docs/production.md, rotating the token key). */
runEntryPoint(async () => {
  const { 'forget-key': forgetKeys } = readArguments();
  const config = loadTokenKeysConfig(readEnvironment());
  const cipher = createTokenCipher(config.tokenEncryption.key, config.tokenEncryption.previousKeys);
  const configured = forgetKeys.find((keyId) => cipher.hasKey(keyId));
  if (configured) {
    throw new StartupError(
      `--forget-key ${configured} is a configured key (TOKEN_ENCRYPTION_KEY or TOKEN_ENCRYPTION_PREVIOUS_KEYS): only a key no longer configured can be forgotten.`,
    );
  }
  // The summary is the one line on stdout; log lines (which user needs reconnecting) go to stderr.
  const logger = createLogger(config.logLevel, 'reseal', process.stderr);
  const db = createDb(config.database);
  try {
    await assertMigrated(db);
    const summary = await resealAllTokens(db, cipher, () => new Date(), logger, { forgottenKeyIds: new Set(forgetKeys) });
    console.log(summaryLine(summary));
  } finally {
    await db.destroy();
  }
});
