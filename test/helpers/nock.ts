import nock from 'nock';
import { afterAll, afterEach, beforeAll } from 'vitest';

/**
 * nock for this test file only, no request leaving the process meanwhile. It replaces Node's HTTP
 * client for the whole process, and the files of a vitest worker share one (vitest.config.ts), so
 * the client is put back when the file ends.
 */
export function useNock(): void {
  beforeAll(() => {
    if (!nock.isActive()) nock.activate();
    nock.disableNetConnect();
  });
  afterEach(() => nock.cleanAll());
  afterAll(() => {
    nock.enableNetConnect();
    nock.restore();
  });
}
