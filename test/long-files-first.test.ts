import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { LONG_FILES, LongFilesFirst } from './long-files-first.js';
import { PROJECT_ROOT } from './helpers/project-copy.js';

/** A file of a project as the sequencer sees it. */
function spec(project: string, file: string): TestSpecification {
  const config = { root: PROJECT_ROOT, isolate: false, sequence: { groupOrder: 0 } };
  return { project: { name: project, config }, moduleId: join(PROJECT_ROOT, file) } as unknown as TestSpecification;
}

/** The sequencer of a run without the timings of an earlier one, as on a fresh checkout. */
function freshCheckoutSequencer(): LongFilesFirst {
  const cache = { getFileTestResults: () => undefined, getFileStats: () => undefined };
  return new LongFilesFirst({ config: { root: PROJECT_ROOT }, cache } as unknown as Vitest);
}

describe('the order test files start in', () => {
  it('starts the long files first, longest first, whichever project they are in', async () => {
    const [longest, second] = LONG_FILES;
    const files = [
      spec('postgres', 'test/db/migrate.test.ts'),
      spec('sqlite', second!),
      spec('sqlite', 'test/config.test.ts'),
      spec('sqlite', longest!),
    ];
    const sorted = await freshCheckoutSequencer().sort(files);
    expect(sorted.map((file) => file.moduleId)).toEqual(
      [longest!, second!, 'test/db/migrate.test.ts', 'test/config.test.ts'].map((file) => join(PROJECT_ROOT, file)),
    );
  });
});
