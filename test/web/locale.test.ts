import { fileURLToPath } from 'node:url';
import express, { type Request } from 'express';
import { describe, expect, it } from 'vitest';
import { DEFAULT_LOCALE } from '../../src/dates/page-locales.js';
import { localeOf } from '../../src/web/locale.js';
import { run } from '../helpers/processes.js';

/** A request as Express hands it to a route, with this Accept-Language header (or none). */
function requestWith(acceptLanguage?: string): Request {
  const headers = acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage };
  return Object.assign(Object.create(express.request) as Request, { headers });
}

describe('localeOf', () => {
  it.each([
    ['en-US,en;q=0.9', 'en'],
    ['de-DE,de;q=0.9,en;q=0.8', 'de'],
    ['fr-CA', 'fr-CA'],
    ['fr-CA;q=0.8, ja', 'ja'],
    ['en;q=0.1, tlh, de-AT;q=0.2', 'de-AT'],
    ['pt;q=0, es-MX', 'es-MX'],
    ['nl;q=0.5, sv;q=0.5', 'nl'],
  ])('reads %s in order of quality, then of the header: %s', (header, locale) => {
    expect(localeOf(requestWith(header))).toBe(locale);
  });

  it.each([
    ['*', DEFAULT_LOCALE],
    ['*, ko;q=0.5', 'ko'],
    ['tlh, *;q=0.9', DEFAULT_LOCALE],
  ])('takes a wildcard as any language, the app’s own: %s is %s', (header, locale) => {
    expect(localeOf(requestWith(header))).toBe(locale);
  });

  it.each([undefined, '', ';;;', ',,,', 'q=0.9', 'de;q=abc', 'de;q=0', 'en_GB', 'x-foo', '\u00e9t\u00e9', 'de-DE-u-'])(
    'answers the app’s own for %j',
    (header) => {
      expect(localeOf(requestWith(header))).toBe(DEFAULT_LOCALE);
    },
  );

  it('reads a header of thousands of languages, in order of quality', () => {
    const unknown = Array.from({ length: 3_000 }, (_, n) => `tlh-x${n.toString(36).padStart(4, '0')};q=0.5`);
    expect(localeOf(requestWith([...unknown, 'it;q=0.6'].join(',')))).toBe('it');
    expect(localeOf(requestWith([...unknown, 'it;q=0.4'].join(',')))).toBe(DEFAULT_LOCALE);
    expect(localeOf(requestWith(`de-${'abcdefgh-'.repeat(1_500)}x`))).toBe(DEFAULT_LOCALE);
  });
});

describe('pages asked in many languages', () => {
  it('do not grow the process: 10,000 different language tags, in a process of their own', { timeout: 120_000 }, async () => {
    const script = fileURLToPath(new URL('./fixtures/locale-memory.ts', import.meta.url));
    const finished = await run('node', ['--expose-gc', '--max-semi-space-size=1', '--import', 'tsx', script, '10000'], {
      PATH: process.env.PATH,
    });
    expect(finished.stderr).toBe('');
    const measured: { distinct: number; pages: number; growthMiB: number } = JSON.parse(finished.stdout);
    expect(measured.distinct).toBe(10_000);
    // Eight languages, written in eight ways.
    expect(measured.pages).toBe(8);
    // Before, every tag stayed in ICU's and luxon's caches: about 1,040 MiB here, 106 KB a tag.
    // Now 7 to 30 MiB, as much after 60,000: what the server and client settle to, whatever the header says.
    expect(measured.growthMiB).toBeLessThan(48);
  });
});
