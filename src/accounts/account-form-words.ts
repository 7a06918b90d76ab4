import type { FieldWords, FormWords } from '../web/form-problems.js';

/** The time zone as the sign-up and dashboard forms name it; the JSON API keeps the schema's message. */
export const TIME_ZONE_WORDS: FieldWords = {
  label: 'Time zone',
  input: 'timezone',
  refused: 'must be one from the list, such as Europe/Berlin',
};

export const SIGN_UP_WORDS: FormWords = {
  fields: {
    email: { label: 'Email', input: 'email', expected: 'must be an email address, such as ana@example.com' },
    password: { label: 'Password', input: 'password' },
    timezone: TIME_ZONE_WORDS,
  },
};

export const TIME_ZONE_FORM_WORDS: FormWords = { fields: { timezone: TIME_ZONE_WORDS } };

export const PASSWORD_CHANGE_WORDS: FormWords = {
  fields: {
    current_password: { label: 'Current password', input: 'current_password' },
    new_password: { label: 'New password', input: 'new_password' },
  },
};

export const PASSWORD_CONFIRMATION_WORDS: FormWords = { fields: { password: { label: 'Your password', input: 'password' } } };
