/**
 * An error answered as JSON `{ error, error_description, fields? }`, the shape of RFC 6749 §5.2.
 * Every JSON endpoint answers errors this way, so a client meets one error format (section 7 shows none).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    description: string,
    readonly extras: { fields?: string[]; headers?: Record<string, string> } = {},
  ) {
    super(description);
  }
}

export function invalidRequest(description: string, fields?: string[]): ApiError {
  return new ApiError(400, 'invalid_request', description, fields === undefined ? {} : { fields });
}

export function invalidGrant(description: string): ApiError {
  return new ApiError(400, 'invalid_grant', description);
}
