import { addDays, localToday } from './local-today.js';

/**
 * The latest local date a person may record anything for (a meal, a day's wellness): their
 * tomorrow. A later day is a mistake; tomorrow is allowed because a person travelling east is
 * already there before their profile's zone is.
 */
export function latestRecordableDate(now: Date, zone: string): string {
  return addDays(localToday(now, zone), 1);
}

/**
 * Why `date` cannot be recorded, following the field's name, or undefined when it can: "must not be
 * after 2026-11-24, tomorrow in Pacific/Pago_Pago: a meal cannot be of a later day".
 */
export function laterThanRecordable(date: string, now: Date, zone: string, what: string): string | undefined {
  const latest = latestRecordableDate(now, zone);
  return date > latest ? `must not be after ${latest}, tomorrow in ${zone}: ${what} cannot be of a later day` : undefined;
}
