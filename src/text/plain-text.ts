import { z } from 'zod';

/**
 * Characters that free text from people must not hold:
 * - controls (Unicode Cc: NUL, BEL, tab, line breaks, DEL, C1);
 * - what makes text display in another order than it is stored ("Trojan Source", CVE-2021-42574):
 *   the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) and the direction
 *   marks (U+200E, U+200F, U+061C);
 * - what is not the text that was sent: a lone surrogate (Cs, half a character, which UTF-8 cannot
 *   carry, so the store would keep U+FFFD instead) and U+FFFD itself, which a decoder puts where the
 *   bytes it received were not UTF-8.
 * Each would travel as it is to the service and to every screen that shows the text.
 */
const NOT_PLAIN = /[\p{Cc}\p{Cs}\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\uFFFD]/u;

/** A character that shows: neither a space nor one that is ignored when drawn (zero-width space, Hangul filler, …). */
const VISIBLE = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}]/u;

/** One line of plain text: trimmed, not empty, at most `maxLength` characters, something visible, nothing from NOT_PLAIN. */
export function plainTextSchema({ maxLength }: { maxLength: number }) {
  return z
    .string({ error: 'is required' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(maxLength, { error: `must be at most ${maxLength} characters` })
    .refine((text) => !NOT_PLAIN.test(text), {
      error: (issue) =>
        `must be plain text, without control, text-direction or unreadable characters (found ${notPlainIn(String(issue.input))})`,
    })
    .refine((text) => VISIBLE.test(text), { error: 'must have a visible character' });
}

/** The first character that is not plain, as U+XXXX: most of them are invisible. */
function notPlainIn(text: string): string {
  const codePoint = NOT_PLAIN.exec(text)?.[0]?.codePointAt(0) ?? 0;
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}
