/**
 * What a failed call to the service means for the caller, decided by the classifiers in this
 * folder and nowhere else:
 * - retryable: try again later (after `retryAfterMs` when the service said so);
 * - permanent: the service refused this request; retrying it unchanged will not help;
 * - needs-reconnect: the person's grant is gone; work waits until they connect again.
 */
export type FailureKind = 'retryable' | 'permanent' | 'needs-reconnect';

export class ServiceError extends Error {
  override name = 'ServiceError';

  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}
