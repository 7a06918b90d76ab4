import { z } from 'zod';

/**
 * Characters that free text from people must not hold: controls (Unicode Cc: NUL, BEL, tab, line
 * breaks, DEL, C1) and the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069),
 * which make text display in another order than it is stored ("Trojan Source", CVE-2021-42574).
 * Both would travel as they are to the service and to every screen that shows the text.
 */
const NOT_PLAIN = /[\p{Cc}\u202A-\u202E\u2066-\u2069]/u;

/** One line of plain text: trimmed, not empty, at most `maxLength` characters, nothing from NOT_PLAIN. */
export function plainTextSchema({ maxLength }: { maxLength: number }) {
  return z
    .string({ error: 'is required' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(maxLength, { error: `must be at most ${maxLength} characters` })
    .refine((text) => !NOT_PLAIN.test(text), {
      error: (issue) => `must be plain text, without control or text-direction characters (found ${notPlainIn(String(issue.input))})`,
    });
}

/** The first character that is not plain, as U+XXXX: most of them are invisible. */
function notPlainIn(text: string): string {
  const codePoint = NOT_PLAIN.exec(text)?.[0]?.codePointAt(0) ?? 0;
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}
