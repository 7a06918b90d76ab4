import type { ServiceApi } from '../../src/provider/api.js';

/** A ServiceApi whose calls fail loudly unless the test gives them a behaviour. */
export function serviceApiWith(calls: Partial<ServiceApi>): ServiceApi {
  const unexpected = (name: string) => async () => {
    throw new Error(`unexpected call to ${name} in this test`);
  };
  return {
    upsertNutrition: unexpected('upsertNutrition'),
    upsertWellness: unexpected('upsertWellness'),
    uploadActivity: unexpected('uploadActivity'),
    listWorkouts: unexpected('listWorkouts'),
    ...calls,
  };
}
