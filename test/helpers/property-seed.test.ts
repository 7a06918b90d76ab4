import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { propertySeed, seedProperties } from './property-seed.js';

const TEST_FOLDER = fileURLToPath(new URL('..', import.meta.url));

// As a property test file does, with the console watched from before the file's hooks run.
const printed = vi.spyOn(console, 'log');
const seed = seedProperties();

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

  it('is the one every property of the file starts from, printed with the command that replays the file', () => {
    expect(fc.readConfigureGlobal().seed).toBe(seed);
    expect(printed).toHaveBeenCalledWith(
      `fast-check seed ${seed}; replay: FC_SEED=${seed} npx vitest run test/helpers/property-seed.test.ts`,
    );
  });

  it('seeds every test file that uses fast-check, so each prints its seed', () => {
    const testFiles = readdirSync(TEST_FOLDER, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => ({ file, text: readFileSync(`${TEST_FOLDER}/${file}`, 'utf8') }));
    const usingFastCheck = testFiles.filter(({ text }) => /^import [^;]* from 'fast-check';$/m.test(text));
    expect(usingFastCheck.length).toBeGreaterThan(0);
    // useFuzzedStack (test/helpers/json-fuzz.ts) seeds the file that calls it.
    const unseeded = usingFastCheck.filter(({ text }) => !/\b(seedProperties\(\);|useFuzzedStack\()/.test(text)).map(({ file }) => file);
    expect(unseeded).toEqual([]);
  });
});
