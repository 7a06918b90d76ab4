import { z } from 'zod';
import { setting, settingGroup } from '../config/setting.js';
import { expecting, wholePositive } from '../config/value-schemas.js';

/** The session cookie's secret, and how long a signed-in session lasts (session.ts). */
export const sessionSettings = settingGroup({
  readBy: 'web',
  settings: {
    SESSION_SECRET: setting({
      schema: z.string(expecting('at least 32 random characters')).min(32, expecting('at least 32 random characters')),
      meaning: 'Signs the session cookie; at least 32 random characters.',
    }),
    SESSION_IDLE_MINUTES: setting({
      schema: wholePositive('a number of minutes, e.g. 30'),
      default: '30',
      meaning:
        'A signed-in session ends this long after its last request, up to a minute sooner (its expiry in Redis is reset at most once a minute).',
    }),
    SESSION_MAX_DAYS: setting({
      schema: wholePositive('a number of days, e.g. 7'),
      default: '7',
      meaning: 'A signed-in session ends this long after sign-in, however active.',
    }),
  },
  read: (values) => ({
    sessionSecret: values.SESSION_SECRET,
    session: { idleMinutes: values.SESSION_IDLE_MINUTES, maxDays: values.SESSION_MAX_DAYS },
  }),
});
