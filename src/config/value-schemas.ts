import { z } from 'zod';

/** Parsers of the kinds of value many settings take, each saying what it expects in the one wording below. */

/** One wording for every variable: "X is required: <what>" when absent, "X must be <what>" when wrong. */
export function expecting(what: string) {
  return {
    error: (issue: { input?: unknown }) => (issue.input === undefined ? `is required: ${what}` : `must be ${what}`),
  };
}

export const nonEmpty = (what: string) => z.string(expecting(what)).min(1, expecting(what));

export const port = z.coerce
  .number(expecting('a port number (0-65535)'))
  .int(expecting('a port number (0-65535)'))
  .min(0, expecting('a port number (0-65535)'))
  .max(65535, expecting('a port number (0-65535)'));

export const wholePositive = (what: string) => z.coerce.number(expecting(what)).int(expecting(what)).positive(expecting(what));

/** Bounded: a timer longer than about 24 days fires at once in Node, and a count past memory's or the store's limits is refused at start. */
export const wholeUpTo = (max: number, what: string) => wholePositive(what).max(max, expecting(what));

/** Comma-separated entries, trimmed, empty ones dropped; the list then parsed by `list`. */
export function commaSeparated<List extends z.ZodType<unknown, string[]>>(list: List) {
  return z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    )
    .pipe(list);
}

/** An http(s) URL, without the slashes it may end with. */
export const baseUrl = z
  .url({ protocol: /^https?$/, ...expecting('an http(s) URL such as https://sync.example.com') })
  .transform((value) => value.replace(/\/+$/, ''));
