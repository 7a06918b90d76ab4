import { setting, settingGroup } from '../config/setting.js';
import { wholePositive } from '../config/value-schemas.js';

/** How many sign-ins, sign-ups, sessions, mailed links and Connects one client address or account may ask for in an hour (attempt-limits.ts). */
export const attemptLimitSettings = settingGroup({
  readBy: 'web',
  settings: {
    SIGNIN_FAILURES_PER_ADDRESS_PER_HOUR: setting({
      schema: wholePositive('a number of failed sign-ins, e.g. 50'),
      default: '50',
      meaning:
        'Failed sign-ins one client address may make in an hour, across all accounts (one account allows 5 per address in 15 minutes). Raise it when many people share an address.',
    }),
    SIGNUPS_PER_ADDRESS_PER_HOUR: setting({
      schema: wholePositive('a number of sign-ups, e.g. 20'),
      default: '20',
      meaning: 'Sign-ups one client address may make in an hour.',
    }),
    SESSIONS_PER_ADDRESS_PER_HOUR: setting({
      schema: wholePositive('a number of sessions, e.g. 100'),
      default: '100',
      meaning:
        'Sessions one client address may start in an hour: sign-ins and sign-ups that succeed (each session is kept in Redis until it ends); past it, 429 with `Retry-After`. Raise it when many people share an address.',
    }),
    VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR: setting({
      schema: wholePositive('a number of mails, e.g. 5'),
      default: '5',
      meaning:
        "Links to confirm an address one account may be mailed in an hour (the sign-up's, each **Mail me the link again**, each change of address); past it, 429 with `Retry-After`.",
    }),
    PASSWORD_RESETS_PER_EMAIL_PER_HOUR: setting({
      schema: wholePositive('a number of requests, e.g. 3'),
      default: '3',
      meaning:
        'Password resets that may be asked for one email address in an hour, whether or not an account has it; past it, 429 with `Retry-After`, so nobody can flood a mailbox.',
    }),
    PASSWORD_RESETS_PER_ADDRESS_PER_HOUR: setting({
      schema: wholePositive('a number of requests, e.g. 20'),
      default: '20',
      meaning:
        'Password resets one client address may ask for in an hour, across all email addresses; past it, 429 with `Retry-After`. Raise it when many people share an address.',
    }),
    CONNECT_ATTEMPTS_PER_ACCOUNT_PER_HOUR: setting({
      schema: wholePositive('a number of attempts, e.g. 20'),
      default: '20',
      meaning:
        "Connects (and Reconnects) one account may start in an hour, whether or not they succeed; past it, 429 with `Retry-After`, and the browser is not sent to the service. Each may cost a request to the service's token endpoint, whose limits the service does not document and every person's Connects and token refreshes share. A person connects once and tries again a few times at most, so 20 is met only by a script or a broken client.",
    }),
  },
  read: (values) => ({
    attemptLimits: {
      signInFailuresPerAddressPerHour: values.SIGNIN_FAILURES_PER_ADDRESS_PER_HOUR,
      signUpsPerAddressPerHour: values.SIGNUPS_PER_ADDRESS_PER_HOUR,
      sessionsPerAddressPerHour: values.SESSIONS_PER_ADDRESS_PER_HOUR,
      verificationMailsPerAccountPerHour: values.VERIFICATION_MAILS_PER_ACCOUNT_PER_HOUR,
      passwordResetsPerEmailPerHour: values.PASSWORD_RESETS_PER_EMAIL_PER_HOUR,
      passwordResetsPerAddressPerHour: values.PASSWORD_RESETS_PER_ADDRESS_PER_HOUR,
      connectAttemptsPerAccountPerHour: values.CONNECT_ATTEMPTS_PER_ACCOUNT_PER_HOUR,
    },
  }),
});

/** How long the links mailed to people work (email-verification.ts, password-reset.ts). */
export const accountMailSettings = settingGroup({
  readBy: 'web',
  settings: {
    EMAIL_VERIFICATION_LINK_HOURS: setting({
      schema: wholePositive('a number of hours, e.g. 24'),
      default: '24',
      meaning: 'How long the link that confirms an email address works after it is mailed.',
    }),
    PASSWORD_RESET_LINK_MINUTES: setting({
      schema: wholePositive('a number of minutes, e.g. 60'),
      default: '60',
      meaning: 'How long the link that sets a new password works after it is mailed.',
    }),
  },
  read: (values) => ({
    accountMail: {
      verificationLinkMs: values.EMAIL_VERIFICATION_LINK_HOURS * 3_600_000,
      resetLinkMs: values.PASSWORD_RESET_LINK_MINUTES * 60_000,
    },
  }),
});
