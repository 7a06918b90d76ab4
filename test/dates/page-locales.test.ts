import { describe, expect, it } from 'vitest';
import { DEFAULT_LOCALE, PAGE_LOCALES, pageLocaleFor } from '../../src/dates/page-locales.js';

describe('PAGE_LOCALES', () => {
  it('are spelled as Intl spells them, once each, and Intl writes dates in each of them', () => {
    expect(Intl.getCanonicalLocales([...PAGE_LOCALES])).toEqual(PAGE_LOCALES);
    expect(Intl.DateTimeFormat.supportedLocalesOf([...PAGE_LOCALES], { localeMatcher: 'lookup' })).toEqual(PAGE_LOCALES);
  });

  it('hold the default', () => {
    expect(PAGE_LOCALES).toContain(DEFAULT_LOCALE);
  });
});

describe('pageLocaleFor', () => {
  it.each([
    [['de-AT'], 'de-AT'],
    [['de-LU'], 'de'],
    [['pt-BR'], 'pt'],
    [['en-US'], 'en'],
    [['zh-Hant-TW'], 'zh-Hant'],
    [['sr-Latn-RS'], 'sr-Latn'],
    [['de-AT-1996'], 'de-AT'],
  ])('takes %j as the listed locale its lookup reaches, %s', (languages, locale) => {
    expect(pageLocaleFor(languages)).toBe(locale);
  });

  it.each([
    [['EN-gb'], 'en-GB'],
    [['iw-IL'], 'he'],
    [['in'], 'id'],
    [['sh'], 'sr-Latn'],
  ])('reads %j as Intl spells it, %s', (languages, locale) => {
    expect(pageLocaleFor(languages)).toBe(locale);
  });

  it.each([
    [['en-GB-u-ca-islamic'], 'en-GB'],
    [['ja-JP-u-nu-fullwide'], 'ja'],
    [['sv-x-private'], 'sv'],
    [['fr-CA-x-a-b'], 'fr-CA'],
  ])('drops extensions and private subtags from %j: %s, in its own calendar and digits', (languages, locale) => {
    expect(pageLocaleFor(languages)).toBe(locale);
  });

  it('takes the first language listed, in the order given', () => {
    expect(pageLocaleFor(['tlh', 'x-klingon', 'nl', 'fr'])).toBe('nl');
  });

  it.each([[[]], [['*']], [['tlh']], [['en_GB']], [['x-foo']], [['']], [['a'.repeat(10_000)]], [['de-' + 'x1234-'.repeat(2_000) + 'x']]])(
    'falls back to the app’s own for %j',
    (languages) => {
      expect(pageLocaleFor(languages)).toBe(DEFAULT_LOCALE);
    },
  );

  it('reads the first 20 languages only', () => {
    const unknown = Array.from({ length: 19 }, (_, n) => `tlh-x${String(n).padStart(4, '0')}`);
    expect(pageLocaleFor([...unknown, 'fr'])).toBe('fr');
    expect(pageLocaleFor([...unknown, 'tlh', 'fr'])).toBe(DEFAULT_LOCALE);
  });
});
