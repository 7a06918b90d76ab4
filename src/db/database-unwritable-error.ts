/**
 * The database file cannot take writes: the disk is full, the file or its folder is read-only, or
 * the disk fails. Nothing was written; it needs an operator, and until then writes are refused.
 */
export class DatabaseUnwritableError extends Error {
  override name = 'DatabaseUnwritableError';

  constructor(options?: ErrorOptions) {
    super('The database cannot be written; nothing was written.', options);
  }
}
