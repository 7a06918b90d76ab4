/** Written in when the person's languages name none of PAGE_LOCALES: the app's own language. */
export const DEFAULT_LOCALE = 'en-GB';

/**
 * The locales the pages write dates and times in, as Intl.getCanonicalLocales spells them. A
 * language alone stands for its regions not listed (`de` for de-DE and de-LU, `pt` for pt-BR,
 * `zh` for zh-CN); a region is listed where its dates are written differently.
 *
 * Why a list, and not whatever a browser asks for: every distinct locale that reaches Intl costs
 * native memory that is never freed (ICU's formatters, luxon's caches of them; measured on Node 20:
 * about 100 KB per tag), and a header can name millions of valid tags. Only these reach Intl.
 */
export const PAGE_LOCALES: readonly string[] = [
  ...['en', 'en-AU', 'en-CA', 'en-GB', 'en-IE', 'en-IN', 'en-NZ', 'en-SG', 'en-ZA'],
  ...['de', 'de-AT', 'de-CH', 'fr', 'fr-BE', 'fr-CA', 'fr-CH', 'it', 'it-CH', 'nl', 'nl-BE'],
  ...['es', 'es-419', 'es-AR', 'es-CL', 'es-CO', 'es-MX', 'es-US', 'pt', 'pt-PT', 'ca'],
  ...['da', 'fi', 'is', 'nb', 'nn', 'no', 'sv'],
  ...['bg', 'bs', 'cs', 'el', 'et', 'hr', 'hu', 'lt', 'lv', 'pl', 'ro', 'ru', 'sk', 'sl', 'sr', 'sr-Latn', 'uk'],
  ...['ar', 'fa', 'he', 'tr', 'bn', 'hi', 'ta'],
  ...['fil', 'id', 'ms', 'th', 'vi', 'ja', 'ko', 'zh', 'zh-Hant', 'zh-HK', 'zh-TW'],
];

const LISTED = new Set(PAGE_LOCALES);

/**
 * Languages read from a person's list, in their order of preference: a browser sends a handful,
 * and a header of thousands (up to Node's 16 KB of headers) costs no more than these.
 */
const LANGUAGES_READ = 20;

/**
 * The locale of PAGE_LOCALES the pages use for a person who reads `languages`, most wanted first
 * (Accept-Language, RFC 9110 §12.5.4): the first that one of them names, by RFC 4647 §3.4's lookup
 * (`de-AT-1996` is `de-AT` if listed, else `de`; extensions such as `-u-ca-islamic` are dropped the
 * same way), else DEFAULT_LOCALE. A tag that is not one (`*`, `x-foo`, `en_GB`) names nothing.
 */
export function pageLocaleFor(languages: readonly string[]): string {
  for (const language of languages.slice(0, LANGUAGES_READ)) {
    const locale = lookup(language);
    if (locale !== undefined) return locale;
  }
  return DEFAULT_LOCALE;
}

function lookup(language: string): string | undefined {
  const subtags = canonicalTag(language)?.split('-') ?? [];
  for (let length = subtags.length; length > 0; length--) {
    // A singleton (`u`, `x`) introduces the subtags after it and never ends a range.
    if (subtags[length - 1]!.length === 1) continue;
    const range = subtags.slice(0, length).join('-');
    if (LISTED.has(range)) return range;
  }
  return undefined;
}

/** The tag as Intl spells it (`EN-gb` is `en-GB`, `iw` is `he`), or undefined for one that is not a language tag. */
function canonicalTag(language: string): string | undefined {
  try {
    return Intl.getCanonicalLocales(language)[0];
  } catch {
    return undefined; // RangeError: not a BCP 47 language tag
  }
}
