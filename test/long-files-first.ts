import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest, about half a minute or more each, longest first. Vitest starts the
 * longest files first only when it has the timings of an earlier run on this machine, which a fresh
 * checkout (CI's) lacks: it then starts the files by size, every Postgres one before any SQLite one,
 * and a long file started last runs on alone while the other workers wait. A name that is no longer
 * there (a file of a kind a copy removed, a renamed file) changes nothing but the order.
 */
export const LONG_FILES = [
  'test/e2e/partner-copy.test.ts',
  'test/e2e/scheduling.test.ts',
  'test/e2e/demo.test.ts',
  'test/e2e/redis-sentinel.test.ts',
  'test/e2e/redis-cluster.test.ts',
  'test/dev/chaos.test.ts',
  'test/web/locale.test.ts',
  'test/e2e/fresh-flood.test.ts',
  'test/e2e/worker-stopped-mid-refresh.test.ts',
];

/** Where a file stands in LONG_FILES; every other file after them. */
function rank(spec: TestSpecification): number {
  const index = LONG_FILES.indexOf(relative(spec.project.config.root, spec.moduleId));
  return index === -1 ? LONG_FILES.length : index;
}

/** Vitest's order, with the long files moved to the front. */
export class LongFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
