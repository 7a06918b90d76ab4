import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { propertySeed } from './property-seed.js';

const TEST_FOLDER = fileURLToPath(new URL('..', import.meta.url));

describe('the seed of property tests', () => {
  it('is FC_SEED when it is set, to replay a run', () => {
    expect(propertySeed({ FC_SEED: '-751833187' })).toBe(-751833187);
  });

  it('is drawn anew for each run without FC_SEED', () => {
    const seeds = new Set(Array.from({ length: 5 }, () => propertySeed({})));
    expect(seeds.size).toBeGreaterThan(1);
    for (const seed of seeds) expect(Number.isInteger(seed)).toBe(true);
  });

  it.each(['abc', '1.5', '2147483648', '12 34'])('refuses FC_SEED=%s, which no run printed', (value) => {
    expect(() => propertySeed({ FC_SEED: value })).toThrow();
  });

  it('seeds every test file that uses fast-check, so each prints its seed', () => {
    const testFiles = readdirSync(TEST_FOLDER, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => ({ file, text: readFileSync(`${TEST_FOLDER}/${file}`, 'utf8') }));
    const usingFastCheck = testFiles.filter(({ text }) => /^import [^;]* from 'fast-check';$/m.test(text));
    expect(usingFastCheck.length).toBeGreaterThan(0);
    const unseeded = usingFastCheck.filter(({ text }) => !/^seedProperties\(\);$/m.test(text)).map(({ file }) => file);
    expect(unseeded).toEqual([]);
  });
});
