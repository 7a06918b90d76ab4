import { z } from 'zod';
import { MAX_ROW_ID } from '../db/row-id.js';
import { nestsTooDeep, TOO_DEEP_MESSAGE } from '../text/json-nesting.js';
import { plainTextSchema } from '../text/plain-text.js';

/** The service shows no limits (§8); these keep a name readable and metadata within a text part (receive-upload.ts). */
const NAME_MAX_LENGTH = 200;
const METADATA_MAX_CHARACTERS = 16 * 1024;

export const activityIdSchema = z.coerce.number({ error: 'must be an activity id' }).int().positive().max(MAX_ROW_ID);

export const activityNameSchema = plainTextSchema({ maxLength: NAME_MAX_LENGTH });

/** §2.2: "a JSON-encoded object of client-defined keys". */
const metadataObjectSchema = z.record(z.string(), z.unknown(), { error: 'must be a JSON object, such as {"localId":"42"}' });

export type ActivityMetadata = z.infer<typeof metadataObjectSchema>;

/**
 * Keys that JavaScript objects have as members of their prototype. A record built from metadata
 * would drop "__proto__" (assigning it sets the prototype), and code of the partner's that reads
 * the metadata could take any of them for the object's own machinery: they are refused, wherever
 * they are, rather than dropped without a word.
 */
const PROTOTYPE_MEMBERS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * What is wrong in metadata's parsed JSON, at any depth, in words: a key named like a prototype
 * member, or a number too large for a double (JSON.parse reads 1e999 as Infinity, which
 * JSON.stringify would store as null). A body's depth is bounded before it is parsed.
 */
function metadataProblemIn(value: unknown): string | undefined {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    return 'must hold numbers a JSON reader can keep: one is too large (such as 1e999); send it as a string';
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (PROTOTYPE_MEMBERS.has(key)) {
      return `must not use "${key}" as a key, which JavaScript reads as part of an object rather than as data: use another name`;
    }
    const problem = metadataProblemIn(inner);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** Metadata as a request gives it: checked on the parsed JSON as it came, before a record is made of it. */
const metadataSchema = z
  .unknown()
  .superRefine((metadata, context) => {
    const problem = metadataProblemIn(metadata);
    if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
  })
  .pipe(metadataObjectSchema)
  .refine((metadata) => JSON.stringify(metadata).length <= METADATA_MAX_CHARACTERS, {
    error: `must be at most ${METADATA_MAX_CHARACTERS} characters as JSON`,
  });

/** The text parts of POST /api/activities (multipart, §2.2): `metadata` is JSON in a string, as the service takes it. */
export const uploadFieldsSchema = z.strictObject({
  name: activityNameSchema.optional(),
  metadata: z
    .string()
    .transform((text, context) => {
      // Counted on the text: JSON.parse would take it, but the checks after it recurse.
      if (nestsTooDeep(text)) {
        context.addIssue({ code: 'custom', message: TOO_DEEP_MESSAGE });
        return z.NEVER;
      }
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'must be a JSON object, such as {"localId":"42"}' });
        return z.NEVER;
      }
    })
    .pipe(metadataSchema)
    .optional(),
});

/** The Activities page's upload form: an empty name field means "no name", and the file's name is taken. */
export const uploadFormSchema = z.object({
  name: z.preprocess((value) => (value === '' ? undefined : value), activityNameSchema.optional()),
});

/** The JSON of PATCH /api/activities/:id: what to change. */
export const activityChangesSchema = z
  .strictObject({ name: activityNameSchema.optional(), metadata: metadataSchema.optional() })
  .refine((changes) => Object.keys(changes).length > 0, { error: 'must change name or metadata' });

export type ActivityChanges = z.infer<typeof activityChangesSchema>;

/** The metadata as stored and sent: the object's JSON text. */
export function metadataText(metadata: ActivityMetadata): string {
  return JSON.stringify(metadata);
}

/** Metadata as stored; the column only ever holds metadataText's output. */
export function storedMetadata(text: string): ActivityMetadata {
  return metadataObjectSchema.parse(JSON.parse(text));
}
