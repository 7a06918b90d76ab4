import type { Kysely } from 'kysely';

// Frozen in time: migrations use Kysely<any>, never the app's current Database type.
// Zones used to be stored as typed, in any letter case; from now on only canonical names are.
// There is no `down`: the typed spellings are not kept, and canonical names were valid before too.
export async function up(db: Kysely<any>): Promise<void> {
  const stored = await db.selectFrom('users').select('timezone').distinct().execute();
  for (const { timezone } of stored) {
    const canonical = canonicalName(timezone);
    if (canonical === undefined || canonical === timezone) continue;
    await db.updateTable('users').set({ timezone: canonical }).where('timezone', '=', timezone).execute();
  }
}

function canonicalName(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat(undefined, { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
