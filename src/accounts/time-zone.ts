import { getAllTimezones } from 'countries-and-timezones';

/** IANA names use ASCII letters, digits and `/ _ - +` only (e.g. America/Port-au-Prince, Etc/GMT+5). */
const ZONE_NAME = /^[A-Za-z0-9/_+-]{1,64}$/;

/**
 * Every name of IANA's time zone database, zones and links (the backward-compatible names), by its
 * lower case: its spelling there and, for a link, the zone it points to. From the database itself
 * (countries-and-timezones ships it), since Intl answers with ICU's names, which keep a zone's
 * first spelling for ever (Node 20: Europe/Kiev, Asia/Calcutta, America/Godthab).
 */
const TZ_DATABASE = new Map(
  Object.values(getAllTimezones({ deprecated: true })).map((zone) => [
    zone.name.toLowerCase(),
    { name: zone.name, linkTo: zone.aliasOf ?? undefined },
  ]),
);

const storedNameByName = new Map<string, string | undefined>();

/**
 * The name a time zone given in any letter case is stored and shown by: the zone the person chose,
 * in IANA's current spelling ("europe/kiev" and "Europe/Kyiv" → "Europe/Kyiv", "asia/calcutta" →
 * "Asia/Kolkata"), whatever this Node's ICU calls it; undefined for a name IANA's database does not
 * hold or ICU cannot compute dates in.
 *
 * A link is followed only where it is a new spelling of the same zone: ICU resolves both names to one
 * zone. IANA also links zones it merged (Europe/Amsterdam to Europe/Brussels) that ICU keeps apart, and
 * there the person's choice stands.
 *
 * Why only names from the database reach Intl: V8 keeps native memory for every distinct spelling
 * of a zone it is handed (measured on Node 20: tens of kilobytes each, never freed), and zones are
 * accepted in any case, so passing people's spellings through would let requests grow the process
 * without bound. Here Intl only ever sees the database's few hundred names, and the map above holds
 * at most one answer for each.
 */
export function ianaTimeZoneName(zone: string): string | undefined {
  if (!ZONE_NAME.test(zone)) return undefined;
  const entry = TZ_DATABASE.get(zone.toLowerCase());
  if (entry === undefined) return undefined;
  if (!storedNameByName.has(entry.name)) storedNameByName.set(entry.name, currentSpelling(entry.name, entry.linkTo));
  return storedNameByName.get(entry.name);
}

/**
 * The names a person may pick from, sorted: each zone under the one name it is stored and shown by
 * (Europe/Kyiv, not Europe/Kiev too), so the list offers no two spellings of one zone.
 */
export function timeZoneNames(): readonly string[] {
  pickableNames ??= [
    ...new Set([...TZ_DATABASE.values()].map(({ name }) => ianaTimeZoneName(name)).filter((name) => name !== undefined)),
  ].sort();
  return pickableNames;
}

let pickableNames: string[] | undefined;

function currentSpelling(name: string, linkTo: string | undefined): string | undefined {
  const zone = icuZone(name);
  // ECMA-402 names the UTC zone "UTC", whatever it is called (Etc/UTC, Etc/GMT, GMT).
  if (zone === undefined || zone === 'UTC') return zone;
  return linkTo !== undefined && icuZone(linkTo) === zone ? linkTo : name;
}

/** ICU's own name of the zone, or undefined when it knows none by this name. */
function icuZone(name: string): string | undefined {
  try {
    return new Intl.DateTimeFormat(undefined, { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}
