import type { RequestHandler } from 'express';
import { ApiError } from './api-error.js';

/** 415 unless the request body has this media type (section 4 names one per endpoint). */
export function requireContentType(mediaType: string): RequestHandler {
  return (req, _res, next) => {
    if (!req.is(mediaType)) {
      throw new ApiError(415, 'invalid_request', `Content-Type must be ${mediaType}`);
    }
    next();
  };
}
