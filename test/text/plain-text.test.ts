import { describe, expect, it } from 'vitest';
import { plainTextSchema } from '../../src/text/plain-text.js';

const name = plainTextSchema({ maxLength: 40 });

function problemWith(text: string): string | undefined {
  const parsed = name.safeParse(text);
  return parsed.success ? undefined : parsed.error.issues[0]?.message;
}

describe('plain text from people', () => {
  it.each(['Müller Ride', 'ünïcødé 🚴', 'Familie 👩‍👩‍👧', 'سباق الصباح', 'ריצת בוקר', 'Café au lait'])('accepts %s', (text) => {
    expect(name.parse(text)).toBe(text);
  });

  it('is trimmed', () => {
    expect(name.parse('  Oats \u3000')).toBe('Oats');
  });

  it.each([
    ['a zero-width space', '\u200B'],
    ['a Hangul filler', '\u3164'],
    ['a zero-width no-break space between spaces', ' \uFEFF '],
    ['several invisible characters', '\u200B\u3164\u2060'],
  ])('refuses %s alone, which shows nothing', (_what, text) => {
    expect(problemWith(text)).toMatch(/^must (not be empty|have a visible character)/);
  });

  it.each([
    ['the right-to-left mark', 'Oats\u200F', 'U+200F'],
    ['the left-to-right mark', '\u200EOats', 'U+200E'],
    ['the Arabic letter mark', 'Ride\u061C', 'U+061C'],
    ['a right-to-left override', '\u202EOats', 'U+202E'],
  ])('refuses %s, which changes the order text is shown in', (_what, text, codePoint) => {
    expect(problemWith(text)).toBe(`must be plain text, without control, text-direction or unreadable characters (found ${codePoint})`);
  });

  it.each([
    ['a lone high surrogate', 'Ride \uD800', 'U+D800'],
    ['a lone low surrogate', '\uDC00Ride', 'U+DC00'],
    ['the replacement character a decoder leaves for bytes that are not UTF-8', 'Ride \uFFFD\uFFFD\uFFFD', 'U+FFFD'],
  ])('refuses %s rather than store something else than was sent', (_what, text, codePoint) => {
    expect(problemWith(text)).toBe(`must be plain text, without control, text-direction or unreadable characters (found ${codePoint})`);
  });
});
