import { DateTime } from 'luxon';
import { z } from 'zod';
import type { DateStyle } from '../dates/date-style.js';
import { SUPPORTED_DATES, isSupportedDate } from '../dates/supported-dates.js';

/**
 * Which local day a meal item belongs to, and how its time goes out (docs/architecture.md, decision 2;
 * interface document §2.4 and §4.7 rules 2 and 3):
 * - with an offset (+05:45): the calendar date at that offset, and the offset is kept;
 * - in UTC (Z): converted to the user's IANA zone at that instant;
 * - without an offset: wall time in the user's zone. A time in a DST gap moves forward by the
 *   gap; a time that occurs twice takes the earlier instant.
 * The instant never changes. It goes out as `yyyy-MM-ddTHH:mm:ss[.SSS]±hh:mm`: seconds always,
 * milliseconds only when not zero, never Z. A time that cannot go out that way, or whose instant
 * or local date is outside SUPPORTED_DATES, is refused rather than changed.
 */

/** ±14:00 (Kiribati) is the widest offset in use; ISO 8601 would allow up to ±23:59. */
const MAX_OFFSET_MINUTES = 14 * 60;

const WRITTEN_OFFSET = /([+-])(\d{2}):(\d{2})$/;

/** The offset written at the end of a date-time, in minutes; undefined for Z or none. */
function writtenOffsetMinutes(input: string): number | undefined {
  const offset = WRITTEN_OFFSET.exec(input);
  if (!offset) return undefined;
  const [, sign, hours, minutes] = offset;
  return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
}

/** ISO 8601 date-time with an offset, Z, or none; at most millisecond precision, so the instant is kept exactly. */
export const loggedAtInputSchema = z.iso
  .datetime({ offset: true, local: true, error: 'must be an ISO 8601 date-time such as 2026-11-21T08:30:00+01:00' })
  .refine((value) => !/\.\d{4,}/.test(value), { error: 'must have at most millisecond precision' })
  .refine((value) => Math.abs(writtenOffsetMinutes(value) ?? 0) <= MAX_OFFSET_MINUTES, {
    error: 'must have an offset between -14:00 and +14:00',
  });

export interface PlacedTime {
  /** As it will be sent: the local offset, never Z. */
  loggedAt: string;
  /** YYYY-MM-DD in that offset, within SUPPORTED_DATES. */
  localDate: string;
}

/** The outcome of placing a time; a refusal's message follows the field's name ("logged_at must …"). */
export type Placement =
  { ok: true; placed: PlacedTime } | { ok: false; reason: 'outside_supported_dates' | 'offset_with_seconds'; message: string };

export function placeLoggedAt(input: string, userZone: string): Placement {
  const local = localDateTime(input, userZone);
  const localDate = local.toISODate()!;
  if (!isSupportedDate(localDate) || !isSupportedDate(local.toUTC().toISODate()!)) {
    return {
      ok: false,
      reason: 'outside_supported_dates',
      message: `must fall between ${SUPPORTED_DATES.first} and ${SUPPORTED_DATES.last}, both in UTC and in its local time`,
    };
  }
  // ISO 8601 offsets (interface document §4.7 rule 2; RFC 3339 §5.6) have no seconds, and before
  // standard time many zones were at offsets like -00:44:30 (Africa/Monrovia until 1972).
  // Rounding would move the instant, so the person gives the offset they mean.
  if (!Number.isInteger(local.offset)) {
    return {
      ok: false,
      reason: 'offset_with_seconds',
      message: `is at a time when ${userZone} was at ${offsetWithSeconds(local.offset)}, which cannot be sent as ±hh:mm; give the time with an explicit offset`,
    };
  }
  return { ok: true, placed: { loggedAt: formatWithOffset(local), localDate } };
}

function localDateTime(input: string, userZone: string): DateTime {
  if (WRITTEN_OFFSET.test(input)) return DateTime.fromISO(input, { setZone: true });
  if (/z$/i.test(input)) return DateTime.fromISO(input, { zone: userZone });
  // Not fromISO(input, { zone: userZone }): luxon would start from the zone's offset today, and where
  // that is neither offset of a nearby change (Asia/Almaty is +05:00 now, +06:00/+07:00 in 2002) it
  // places wall times near the change wrongly. Reading the wall time as UTC first starts from an
  // offset of that moment.
  const wallTime = DateTime.fromISO(input, { zone: 'utc' }).setZone(userZone, { keepLocalTime: true });
  return earliest(wallTime.getPossibleOffsets());
}

/** Of the instants that show a wall time twice (DST fall-back), the first. */
function earliest(candidates: DateTime[]): DateTime {
  return candidates.reduce((first, candidate) => (candidate.toMillis() < first.toMillis() ? candidate : first));
}

function formatWithOffset(time: DateTime): string {
  return time.toFormat(time.millisecond === 0 ? "yyyy-MM-dd'T'HH:mm:ssZZ" : "yyyy-MM-dd'T'HH:mm:ss.SSSZZ");
}

/** ±hh:mm:ss of an offset in minutes, which luxon keeps with its seconds as a fraction. */
function offsetWithSeconds(offsetMinutes: number): string {
  const seconds = Math.round(Math.abs(offsetMinutes) * 60);
  const parts = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60, seconds % 60];
  return (offsetMinutes < 0 ? '-' : '+') + parts.map((part) => String(part).padStart(2, '0')).join(':');
}

/**
 * A placed time as a page shows it: the wall time at its own offset, and, when the user's zone was
 * at another offset at that instant (a meal logged while travelling), also the user's wall time:
 * "23:30 at UTC−05:00, 05:30 on 24 Nov your time", in the person's date style.
 */
export function describeLoggedAt(loggedAt: string, userZone: string, style: DateStyle): string {
  const own = DateTime.fromISO(loggedAt, { setZone: true });
  const yours = own.setZone(userZone);
  const offset = `UTC${own.toFormat('ZZ').replace('-', '\u2212')}`;
  if (yours.offset === own.offset) return `${style.time(own)} at ${offset}`;
  const day = yours.toISODate() === own.toISODate() ? '' : ` on ${style.dayAndMonth(yours)}`;
  return `${style.time(own)} at ${offset}, ${style.time(yours)}${day} your time`;
}
