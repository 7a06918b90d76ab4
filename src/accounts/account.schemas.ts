import { z } from 'zod';
import { ianaTimeZoneName } from './time-zone.js';

/** Emails are compared in lower case: Ana@Example.com and ana@example.com are one account. */
export const emailSchema = z
  .string({ error: 'is required' })
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: 'must be an email address' }).max(254, { error: 'must be at most 254 characters' }));

export const passwordSchema = z
  .string({ error: 'is required' })
  .min(10, { error: 'must be at least 10 characters' })
  .max(256, { error: 'must be at most 256 characters' });

/** An IANA zone name in any letter case, e.g. europe/kiev; parsed to IANA's current spelling, Europe/Kyiv (time-zone.ts). */
export const timezoneSchema = z
  .string({ error: 'is required' })
  .trim()
  .transform((zone, context) => {
    const name = ianaTimeZoneName(zone);
    if (name !== undefined) return name;
    context.addIssue({ code: 'custom', message: 'must be an IANA time zone such as Europe/Berlin' });
    return z.NEVER;
  });

export const signUpSchema = z.object({ email: emailSchema, password: passwordSchema, timezone: timezoneSchema });
export const signInSchema = z.object({ email: emailSchema, password: z.string({ error: 'is required' }) });
export const timezoneChangeSchema = z.object({ timezone: timezoneSchema });
/** The current password is checked, not parsed: any string may be a password set before the rules. */
const currentPasswordSchema = z.string({ error: 'is required' }).max(1024, { error: 'is not your password' });
export const passwordChangeSchema = z.strictObject({ current_password: currentPasswordSchema, new_password: passwordSchema });
export const passwordConfirmationSchema = z.strictObject({ password: currentPasswordSchema });
export const forgotPasswordSchema = z.strictObject({ email: emailSchema });
export const connectionMailSchema = z.strictObject({ connectionMail: z.boolean({ error: 'must be true or false' }) });

export type SignUpInput = z.infer<typeof signUpSchema>;
export type SignInInput = z.infer<typeof signInSchema>;
export type PasswordChangeInput = z.infer<typeof passwordChangeSchema>;
