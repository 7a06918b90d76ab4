import { sql } from 'kysely';
import { z } from 'zod';
import type { Config } from '../../../config.js';
import { withRequestedScopes } from '../../../connections/capabilities.js';
import { newConnectionRow, saveConnections } from '../../../connections/connection.repository.js';
import { createTokenCipher } from '../../../connections/token-crypto.js';
import type { Db } from '../../../db/database.js';
import { parseTokenResponse } from '../../../provider/token-set.js';
import { backlogAthlete } from './backlog.js';

/** Grants asked of the sandbox per request, and connections stored per statement. */
const GRANTS_PER_PAGE = 2000;

const seededGrantsSchema = z.object({
  grants: z.array(z.looseObject({ athlete: z.string(), refresh_token: z.string() })),
});

/**
 * Connects every backlog person as a completed Connect would: the sandbox (which remembers nothing
 * between runs) grants the app each person's athlete, and each person's tokens are sealed with the
 * app's own cipher, one pair per person, since a sealed token is bound to its user's row and field
 * (token-crypto.ts) and cannot be copied to another's. Returns how many it connected.
 */
export async function connectBacklog(db: Db, config: Config, sandboxUrl: string, people: number): Promise<number> {
  const cipher = createTokenCipher(config.tokenEncryption.key, config.tokenEncryption.previousKeys);
  const { scopes } = withRequestedScopes(config.athlete);
  for (let first = 1; first <= people; first += GRANTS_PER_PAGE) {
    const userIds = Array.from({ length: Math.min(GRANTS_PER_PAGE, people - first + 1) }, (_, index) => first + index);
    const now = new Date();
    const grants = await seedGrants(sandboxUrl, userIds.map(backlogAthlete), scopes);
    const rows = grants.map((grant, index) => {
      const tokens = parseTokenResponse(grant, scopes, now);
      return newConnectionRow(cipher, userIds[index]!, { ...tokens, refreshToken: grant.refresh_token }, now);
    });
    await saveConnections(db, rows);
  }
  // As autovacuum would have soon after: the keep-alive's pages are planned for the table as it now is.
  await sql`analyze connections`.execute(db);
  return people;
}

async function seedGrants(sandboxUrl: string, athletes: string[], scopes: readonly string[]) {
  const response = await fetch(`${sandboxUrl}/_sandbox/grants`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ athletes, scopes }),
  });
  if (!response.ok) throw new Error(`POST /_sandbox/grants answered ${response.status}: ${await response.text()}`);
  return seededGrantsSchema.parse(await response.json()).grants;
}
