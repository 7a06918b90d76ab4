import { describe, expect, it } from 'vitest';
import { JSON_MAX_NESTING, nestsTooDeep } from '../../src/text/json-nesting.js';

const objects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('nestsTooDeep', () => {
  it('lets objects and arrays nest JSON_MAX_NESTING deep', () => {
    expect(nestsTooDeep(objects(JSON_MAX_NESTING))).toBe(false);
    expect(nestsTooDeep(arrays(JSON_MAX_NESTING))).toBe(false);
    expect(nestsTooDeep(`[${objects(JSON_MAX_NESTING - 1)}, ${arrays(JSON_MAX_NESTING - 1)}]`)).toBe(false);
  });

  it('finds one level more, and thousands, without recursing', () => {
    expect(nestsTooDeep(objects(JSON_MAX_NESTING + 1))).toBe(true);
    expect(nestsTooDeep(arrays(JSON_MAX_NESTING + 1))).toBe(true);
    expect(nestsTooDeep(arrays(1_000_000))).toBe(true);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const brackets = JSON.stringify({ text: '['.repeat(100), quoted: '"{{{', escaped: '\\"[[[' });
    expect(nestsTooDeep(brackets)).toBe(false);
    expect(JSON.parse(brackets)).toBeTypeOf('object');
  });

  it('reads scalars and empty text as flat', () => {
    for (const text of ['', '1', '"text"', 'null', '{}']) expect(nestsTooDeep(text)).toBe(false);
  });
});
