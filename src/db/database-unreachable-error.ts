/**
 * The database server could not be reached, or dropped the connection: it is down, restarting,
 * or the network to it fails. The statement may not have run; it needs the server back, and until
 * then requests that touch the database are refused.
 */
export class DatabaseUnreachableError extends Error {
  override name = 'DatabaseUnreachableError';

  constructor(options?: ErrorOptions) {
    super('The database server cannot be reached.', options);
  }
}
