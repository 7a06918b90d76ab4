import type { ServiceApi } from '../../src/provider/api.js';

/** A ServiceApi whose calls fail loudly unless the test gives them a behaviour. */
export function serviceApiWith(calls: Partial<ServiceApi>): ServiceApi {
  const unexpected = (name: string) => async () => {
    throw new Error(`unexpected call to ${name} in this test`);
  };
  return {
    postJson: unexpected('postJson'),
    postMultipart: unexpected('postMultipart'),
    getText: unexpected('getText'),
    ...calls,
  };
}

/** A day record as every daily kind's upsert sends it: its local date, and the rest of the kind's own. */
export interface UpsertedDay {
  date: string;
}

/**
 * The real API with its JSON posts (every daily kind's upsert of a day record) made through `intercept`: it
 * is given the record and the real upsert, and decides when, whether and how often to make it.
 */
export function upsertsThrough(
  real: ServiceApi,
  intercept: (record: UpsertedDay, upsert: () => Promise<void>) => Promise<void>,
): ServiceApi {
  return {
    ...real,
    postJson: (userId, path, record) => intercept(record as UpsertedDay, () => real.postJson(userId, path, record)),
  };
}
