/**
 * How deeply JSON from outside may nest objects and arrays. The app's own bodies nest three deep;
 * activity metadata is the partner's own, so it gets room. JSON.stringify, zod and every other
 * walk of a value recurse once per level, and at a few thousand levels the stack runs out.
 */
export const JSON_MAX_NESTING = 32;

export const TOO_DEEP_MESSAGE = `must not be nested more than ${JSON_MAX_NESTING} deep`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x7b, 0x5b]); // { [
const CLOSERS = new Set([0x7d, 0x5d]); // } ]

/**
 * Whether JSON text nests objects and arrays deeper than JSON_MAX_NESTING, counted on the text
 * itself in one pass, so that nothing recurses into it first. Brackets inside strings do not count.
 * Text that is not JSON may be counted wrongly; its parse fails anyway.
 */
export function nestsTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === BACKSLASH) index++;
      else if (char === QUOTE) inString = false;
    } else if (char === QUOTE) inString = true;
    else if (OPENERS.has(char) && ++depth > JSON_MAX_NESTING) return true;
    else if (CLOSERS.has(char)) depth--;
  }
  return false;
}
