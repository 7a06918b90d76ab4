/** How long the requests to the service may take (ATHLETE_TIMEOUT_S, ATHLETE_UPLOAD_MIN_BYTES_PER_S). */
export interface RequestTimeouts {
  /** What any request may take: the service's time to answer, and a small body's. */
  baseS: number;
  /** The slowest rate a body may travel at, in bytes per second. */
  minBytesPerS: number;
}

/**
 * The time one request may take: the base, plus its body's size at the slowest rate accepted. A
 * large .fit file gets the time it needs on a slow link rather than being cut off, and sent whole
 * again, at every try; a JSON body of a few kilobytes adds milliseconds.
 */
export function requestTimeoutMs(bodyBytes: number, { baseS, minBytesPerS }: RequestTimeouts): number {
  return Math.ceil((baseS + bodyBytes / minBytesPerS) * 1000);
}
