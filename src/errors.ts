/**
 * A problem that stops the process at start-up and that a person fixes from one line of text
 * (a setting, a pending migration, a missing service). Entry points print its message alone.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}
