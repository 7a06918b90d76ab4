import { randomInt } from 'node:crypto';
import { relative } from 'node:path';
import fc from 'fast-check';
import { beforeAll } from 'vitest';
import { z } from 'zod';

/** fast-check's seeds are 32-bit integers (its readSeed folds any other number into one). */
const SEEDS = { min: -(2 ** 31), end: 2 ** 31 };

const seedSchema = z
  .string()
  .regex(/^-?\d+$/, 'FC_SEED must be an integer: the seed a run printed')
  .transform(Number)
  .pipe(z.number().gte(SEEDS.min).lt(SEEDS.end));

/** FC_SEED when it is set, a fresh random seed otherwise. */
export function propertySeed(env: Record<string, string | undefined> = process.env): number {
  const given = env.FC_SEED;
  return given === undefined || given === '' ? randomInt(SEEDS.min, SEEDS.end) : seedSchema.parse(given);
}

/**
 * Seeds every fast-check property of the calling test file, and prints the seed. Each run of the
 * file draws a new seed, so runs explore new cases; a failed run is replayed with the seed it
 * printed:
 *
 *     FC_SEED=<seed> npx vitest run <file>
 *
 * The seed is printed before the file's tests start (vitest shows it under "stdout | <file>",
 * also when a test then times out or the worker dies) and fast-check repeats it in the error of a
 * failed property (`{ seed: …, path: … }`). Each property starts from the seed on its own, so
 * `-t <test name>` replays a property alone the same way. A counterexample found this way becomes
 * a fixed case of the file (an example test, or fast-check's `examples`), so later runs check it
 * whatever their seed.
 */
export function seedProperties(): number {
  const seed = propertySeed();
  fc.configureGlobal({ ...fc.readConfigureGlobal(), seed });
  // Vitest reads a hook's first parameter as its fixtures, and requires it destructured.
  // eslint-disable-next-line no-empty-pattern
  beforeAll(({}, suite) => {
    console.log(`fast-check seed ${seed}; replay: FC_SEED=${seed} npx vitest run ${relative(process.cwd(), suite.file.filepath)}`);
  });
  return seed;
}
