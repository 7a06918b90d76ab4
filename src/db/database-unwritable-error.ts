/**
 * The database cannot take writes: the disk is full, the SQLite file or its folder is read-only, the
 * disk fails, or the Postgres server is in read-only mode (a hot standby, default_transaction_read_only).
 * Nothing was written; it needs an operator, and until then writes are refused.
 */
export class DatabaseUnwritableError extends Error {
  override name = 'DatabaseUnwritableError';

  constructor(options?: ErrorOptions) {
    super('The database cannot be written; nothing was written.', options);
  }
}
