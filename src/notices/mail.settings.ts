import { z } from 'zod';
import { setting, SettingProblem, settingGroup } from '../config/setting.js';
import { expecting, wholePositive } from '../config/value-schemas.js';

const SMTP_URL_HINT = 'an smtp:// or smtps:// URL, e.g. smtp://user:password@mail.example.com:587';
const MAIL_FROM_HINT = 'the sender of the mails, e.g. "athlete-sync <no-reply@example.com>"';

/**
 * The mail server: the web mails the links of the account (src/accounts/account-mails.ts), the
 * workers the connection mails (send-notices.ts); no SMTP_URL: mail is off.
 */
export const mailSettings = settingGroup({
  readBy: 'both',
  settings: {
    // Unset: no mail is sent (the app says so at start).
    SMTP_URL: setting({
      schema: z.url({ protocol: /^smtps?$/, ...expecting(SMTP_URL_HINT) }),
      unset: '(off)',
      meaning:
        '`smtp://` or `smtps://` URL of the mail server (`smtp://user:password@mail.example.com:587`): the web mails the links that confirm an address and reset a password (see [Confirmed addresses and forgotten passwords](how-it-works.md#confirmed-addresses-and-forgotten-passwords)), each worker mails a person when their connection needs them (see [Mail when the connection needs the person](how-it-works.md#mail-when-the-connection-needs-the-person)). Unset: no mail is sent, addresses cannot be confirmed nor passwords reset by mail, and each process logs `mail is off` at start.',
    }),
    MAIL_FROM: setting({
      schema: z.string().trim().min(1, expecting(MAIL_FROM_HINT)),
      unset: '(required with `SMTP_URL`)',
      meaning: 'The sender of those mails, e.g. `athlete-sync <no-reply@example.com>`.',
    }),
  },
  read: (values) => {
    if (values.SMTP_URL !== undefined && values.MAIL_FROM === undefined)
      return new SettingProblem('MAIL_FROM', `is required with SMTP_URL: ${MAIL_FROM_HINT}`);
    /** `smtpUrl` undefined: mail is off. */
    return { mail: { smtpUrl: values.SMTP_URL, from: values.MAIL_FROM } };
  },
});

/** How often the workers send the connection mails that are due (send-notices.ts). */
export const noticeMailSettings = settingGroup({
  readBy: 'worker',
  settings: {
    MAIL_INTERVAL_MS: setting({
      schema: wholePositive('milliseconds, e.g. 10000'),
      default: '10000',
      meaning: 'How often each worker sends the connection mails that are due.',
    }),
  },
  read: (values) => ({ noticeMail: { intervalMs: values.MAIL_INTERVAL_MS } }),
});
