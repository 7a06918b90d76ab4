import type { ErrorRequestHandler, RequestHandler } from 'express';
import multer from 'multer';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ApiError } from './api-error.js';

/** Unknown routes get JSON like every other answer. */
export const notFound: RequestHandler = (req) => {
  throw new ApiError(404, 'not_found', `no route for ${req.method} ${req.path}`);
};

/** Answers every error as JSON; only unexpected ones are logged, and never with a request body. */
export function jsonErrorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, next) => {
    if (res.headersSent) return next(error);
    const apiError = toApiError(error);
    if (apiError.status >= 500 && !(error instanceof ApiError)) logger.error({ err: error }, 'unexpected error');
    res
      .status(apiError.status)
      .set(apiError.extras.headers ?? {})
      .json({ error: apiError.code, error_description: apiError.message, fields: apiError.extras.fields });
  };
}

/** The errors of Express's body parsers (http-errors): a status, a kind and a message safe to show. */
const bodyParserError = z.object({ status: z.int(), type: z.string(), message: z.string(), expose: z.literal(true) });

function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  if (error instanceof multer.MulterError) return fromMulterError(error);
  const parserError = bodyParserError.safeParse(error);
  if (parserError.success) {
    const { status, type, message } = parserError.data;
    const description = type === 'entity.parse.failed' ? `request body is not valid JSON: ${message}` : message;
    return new ApiError(status, 'invalid_request', description);
  }
  return new ApiError(500, 'server_error', 'unexpected error in the sandbox');
}

function fromMulterError(error: multer.MulterError): ApiError {
  const fields = error.field === undefined ? [] : [error.field];
  if (error.code === 'LIMIT_FILE_SIZE') {
    return new ApiError(413, 'invalid_request', 'file is larger than the sandbox accepts (maxFitBytes)', { fields });
  }
  return new ApiError(400, 'invalid_request', `${error.message} (${fields.join(', ') || 'no field'})`, { fields });
}
