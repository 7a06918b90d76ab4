/** The sandbox's only source of time, so tests can move it without sleeping. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export function isoTime(milliseconds: number): string {
  return new Date(milliseconds).toISOString();
}
