import express, { type RequestHandler } from 'express';
import { requireContentType } from './content-type.js';

const requireJson = requireContentType('application/json');
// Payload limits are "not shown" (section 8); 1 MiB is far above a day of meals.
const parseJson = express.json({ limit: '1mb' });

/** Section 4: JSON endpoints take application/json only (415 otherwise), then the body is parsed. */
export const jsonBody: RequestHandler = (req, res, next) => {
  requireJson(req, res, () => parseJson(req, res, next));
};
