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
    [['de-AT'], 'de-AT', 'a listed region'],
    [['de-LU'], 'de', 'the language of a region not listed'],
    [['pt-BR'], 'pt', 'the language of a region not listed'],
    [['en-US'], 'en', 'the language of a region not listed'],
    [['zh-Hant-TW'], 'zh-Hant', 'the language and script'],
    [['sr-Latn-RS'], 'sr-Latn', 'the language and script'],
    [['de-AT-1996'], 'de-AT', 'the region, without its variant'],
    [['EN-gb'], 'en-GB', 'as Intl spells it'],
    [['iw-IL'], 'he', 'as Intl spells it'],
    [['in'], 'id', 'as Intl spells it'],
    [['sh'], 'sr-Latn', 'as Intl spells it'],
    [['en-GB-u-ca-islamic'], 'en-GB', 'in its own calendar'],
    [['ja-JP-u-nu-fullwide'], 'ja', 'in its own digits'],
    [['sv-x-private'], 'sv', 'without private subtags'],
    [['fr-CA-x-a-b'], 'fr-CA', 'without private subtags'],
  ])('takes %j as %s: %s', (languages, locale) => {
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
