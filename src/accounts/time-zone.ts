/** IANA names use ASCII letters, digits and `/ _ - +` only (e.g. America/Port-au-Prince, Etc/GMT+5). */
const ZONE_NAME = /^[A-Za-z0-9/_+-]{1,64}$/;

const canonicalByLowerCase = new Map<string, string>();

/**
 * The canonical name of a time zone given in any letter case ("europe/berlin" → "Europe/Berlin"),
 * or undefined when Intl knows no such zone. Canonical is what Intl resolves the zone to: for a
 * few renamed zones Node 20 answers the older name (Asia/Kathmandu → Asia/Katmandu), the same zone.
 *
 * Why lower case first: V8 keeps native memory for every distinct spelling of a zone it is handed
 * (measured on Node 20: tens of kilobytes each, never freed), and zones are accepted in any case,
 * so passing people's spellings through would let requests grow the process without bound. Lower-cased
 * and restricted to the IANA alphabet, the valid spellings that can reach Intl are the few hundred
 * real zone names, and the map below holds at most one entry for each.
 */
export function canonicalTimeZone(zone: string): string | undefined {
  if (!ZONE_NAME.test(zone)) return undefined;
  const lowerCase = zone.toLowerCase();
  const known = canonicalByLowerCase.get(lowerCase);
  if (known !== undefined) return known;
  const canonical = resolveTimeZone(lowerCase);
  if (canonical !== undefined) canonicalByLowerCase.set(lowerCase, canonical);
  return canonical;
}

function resolveTimeZone(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat(undefined, { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
