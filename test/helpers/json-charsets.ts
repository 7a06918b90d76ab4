/** The app's answer to a JSON body declared in a charset other than UTF-8 (415). */
export const NOT_UTF8 = {
  error: 'unsupported_media_type',
  message: 'Send the body as JSON in UTF-8: Content-Type: application/json, with no charset or charset=utf-8.',
};

/** The text in UTF-16, low byte first (LE) or high byte first (BE). */
export function utf16(text: string, order: 'LE' | 'BE'): Buffer {
  const bytes = Buffer.from(text, 'utf16le');
  return order === 'LE' ? bytes : bytes.swap16();
}
