import { z } from 'zod';
import { setting, settingGroup } from '../config/setting.js';
import { baseUrl, expecting, nonEmpty, wholeUpTo } from '../config/value-schemas.js';
import { publicAddressSettings } from '../web/web.settings.js';
import { scopeListSchema } from './scopes.js';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The service holds tokens and health data: plain http is only for a sandbox on this machine. */
const serviceUrl = baseUrl.refine(
  (value) => {
    const url = new URL(value);
    return url.protocol === 'https:' || LOOPBACK_HOSTS.has(url.hostname);
  },
  { error: 'must be https (plain http is allowed only for localhost, 127.0.0.1 or [::1])' },
);

const UPLOAD_RATE_HINT = 'bytes per second from 1024 up to 1073741824 (1 GiB), e.g. 262144 (256 KiB)';

/** Where the service is, the client registered with it, and how long a request to it may take (api.ts, oauth.ts). */
export const serviceSettings = settingGroup({
  readBy: 'both',
  settings: {
    ATHLETE_BASE_URL: setting({
      schema: serviceUrl,
      meaning: 'The service. https, or plain http for `localhost`, `127.0.0.1` or `[::1]` only.',
    }),
    ATHLETE_CLIENT_ID: setting({
      schema: nonEmpty('the client id registered with the Athlete Data Service'),
      meaning: 'The client registered with the service.',
    }),
    ATHLETE_CLIENT_SECRET: setting({
      schema: nonEmpty('the client secret registered with the Athlete Data Service'),
      meaning: 'Its secret; sent only from the server, never logged.',
    }),
    ATHLETE_SCOPES: setting({
      schema: scopeListSchema,
      unset: "(the app's kinds' scopes)",
      meaning:
        "Scopes to ask for, space-separated, from the document's scope table. Unset, the app asks for the scope of each kind it has (`src/kinds.ts`), and no other.",
    }),
    // Section 4.2 shows the code exchange as JSON; the refresh request is "not shown" and we assume
    // it is encoded the same way (docs/assumptions.md). 'form' is RFC 6749's own encoding.
    ATHLETE_TOKEN_REQUEST_ENCODING: setting({
      schema: z.enum(['json', 'form'], expecting('json or form')),
      default: 'json',
      meaning: 'How token requests are encoded: `json` or `form` (see Assumptions).',
    }),
    ATHLETE_TIMEOUT_S: setting({
      schema: z.coerce.number(expecting('a number of seconds, e.g. 15')).positive(expecting('a number of seconds, e.g. 15')),
      default: '15',
      meaning:
        "Seconds a request to the service may take before it is abandoned (and retried later), plus its body's time at `ATHLETE_UPLOAD_MIN_BYTES_PER_S`. A workouts list a person waits for cuts each of its requests, and its wait for a token refresh, off when its 3 s are up, whatever this says.",
    }),
    // Bounded below: the largest file at the slowest rate stays within a timer's range (about 24 days).
    ATHLETE_UPLOAD_MIN_BYTES_PER_S: setting({
      schema: wholeUpTo(1024 ** 3, UPLOAD_RATE_HINT).min(1024, expecting(UPLOAD_RATE_HINT)),
      default: '262144',
      gloss: '256 KiB/s',
      meaning:
        "The slowest rate a request's body may travel to the service at: in practice a .fit file's, which only workers send. An upload may take `ATHLETE_TIMEOUT_S` plus the file's size at this rate (a 24 MiB file: 15 + 96 s), so that a slow link is not cut off, and the whole file sent again, at every try; a JSON upsert of a few kilobytes gets milliseconds more. From 1024 to 1073741824 (1 GiB).",
    }),
  },
  uses: { APP_BASE_URL: publicAddressSettings.settings.APP_BASE_URL },
  read: (values) => ({
    athlete: {
      baseUrl: values.ATHLETE_BASE_URL,
      clientId: values.ATHLETE_CLIENT_ID,
      clientSecret: values.ATHLETE_CLIENT_SECRET,
      scopes: values.ATHLETE_SCOPES,
      tokenRequestEncoding: values.ATHLETE_TOKEN_REQUEST_ENCODING,
      timeoutS: values.ATHLETE_TIMEOUT_S,
      /** The slowest rate a request's body may travel at: each request may take timeoutS plus its body's size at this rate. */
      uploadMinBytesPerS: values.ATHLETE_UPLOAD_MIN_BYTES_PER_S,
      /** Registered with the service exactly as written here (section 4.1). */
      redirectUri: `${values.APP_BASE_URL}/oauth/callback`,
    },
  }),
});
