/**
 * The database server could not be reached, refused the connection (credentials, database name) or
 * dropped it: it is down, restarting, misconfigured, or the network to it fails. The statement may not have run; it needs the server back, and until
 * then requests that touch the database are refused.
 */
export class DatabaseUnreachableError extends Error {
  override name = 'DatabaseUnreachableError';

  constructor(options: { cause: unknown }) {
    const reason = options.cause instanceof Error ? options.cause.message : String(options.cause);
    super(`The database cannot be reached (check DATABASE_URL and the server): ${reason}`, options);
  }
}
