import { z } from 'zod';
import { setting, settingGroup } from '../config/setting.js';
import { commaSeparated, expecting } from '../config/value-schemas.js';

const ENCRYPTION_KEY_HINT = '32 random bytes in base64 (create one with: openssl rand -base64 32)';

const encryptionKey = z
  .base64(expecting(ENCRYPTION_KEY_HINT))
  .transform((value) => Buffer.from(value, 'base64'))
  .refine((key) => key.length === 32, expecting(ENCRYPTION_KEY_HINT));

/** The keys that seal the stored tokens (token-crypto.ts): the current one, and older ones still accepted while they are rotated. */
export const tokenKeySettings = settingGroup({
  readBy: 'both',
  settings: {
    TOKEN_ENCRYPTION_KEY: setting({
      schema: z.string(expecting(ENCRYPTION_KEY_HINT)).pipe(encryptionKey),
      meaning:
        "32 random bytes in base64 (`openssl rand -base64 32`); seals the stored OAuth tokens; a key derived from it signs the mails' one-click unsubscribe links.",
    }),
    TOKEN_ENCRYPTION_PREVIOUS_KEYS: setting({
      schema: commaSeparated(z.array(encryptionKey)),
      default: '',
      meaning: "Comma-separated older keys, still accepted for opening tokens (and older mails' unsubscribe links) while you rotate.",
    }),
  },
  read: (values) => ({ tokenEncryption: { key: values.TOKEN_ENCRYPTION_KEY, previousKeys: values.TOKEN_ENCRYPTION_PREVIOUS_KEYS } }),
});

/** When an access token is refreshed (access-token.ts). */
export const tokenRefreshSettings = settingGroup({
  readBy: 'both',
  settings: {
    TOKEN_REFRESH_MARGIN_S: setting({
      schema: z.coerce
        .number(expecting('a number of seconds, e.g. 300'))
        .int(expecting('a whole number of seconds, e.g. 300'))
        .min(0, expecting('a number of seconds, e.g. 300')),
      default: '300',
      meaning:
        'Refresh an access token this long before it expires; tokens living shorter than twice this are refreshed at half their lifetime.',
    }),
  },
  read: (values) => ({ tokenRefreshMarginS: values.TOKEN_REFRESH_MARGIN_S }),
});
