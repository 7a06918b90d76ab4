/**
 * What a failed call to the service means for the caller, decided by the classifiers in this
 * folder and nowhere else:
 * - retryable: try again later (after `retryAfterMs` when the service said so);
 * - permanent: the service refused this request; retrying it unchanged will not help;
 * - needs-reconnect: the person's grant is gone; work waits until they connect again.
 */
export type FailureKind = 'retryable' | 'permanent' | 'needs-reconnect';

export interface FailureDetails {
  /** How long the service asked us to wait (429 Retry-After). */
  retryAfterMs?: number;
  /** The grant lacks a scope this call needs (RFC 6750 §3.1 insufficient_scope), though the token response named it. */
  missingScope?: boolean;
  /** The request got no answer at all (reset, timeout, refused connection). */
  unanswered?: boolean;
  /** Held up on this app's side, before any request: the service was not asked. */
  heldHere?: boolean;
}

export class ServiceError extends Error {
  override name = 'ServiceError';
  readonly retryAfterMs: number | undefined;
  readonly missingScope: boolean;
  readonly unanswered: boolean;
  readonly heldHere: boolean;

  constructor(
    readonly kind: FailureKind,
    message: string,
    { retryAfterMs, missingScope = false, unanswered = false, heldHere = false }: FailureDetails = {},
  ) {
    super(message);
    this.retryAfterMs = retryAfterMs;
    this.missingScope = missingScope;
    this.unanswered = unanswered;
    this.heldHere = heldHere;
  }
}
