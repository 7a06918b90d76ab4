/**
 * The database stayed locked by other writers for longer than a request should wait.
 * Nothing was written; the same write can be tried again in a moment.
 */
export class DatabaseBusyError extends Error {
  override name = 'DatabaseBusyError';

  constructor(options?: ErrorOptions) {
    super('The database is busy with other writes; nothing was written.', options);
  }
}
