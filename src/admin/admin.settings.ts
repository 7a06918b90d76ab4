import { z } from 'zod';
import { setting, settingGroup } from '../config/setting.js';
import { commaSeparated, expecting } from '../config/value-schemas.js';

/** Who may see the queue dashboard (queue-dashboard.ts), and whether they may change jobs there. */
export const adminSettings = settingGroup({
  readBy: 'web',
  settings: {
    ADMIN_EMAILS: setting({
      schema: commaSeparated(z.array(z.email(expecting('comma-separated email addresses')))),
      default: '',
      meaning:
        'Comma-separated emails (any case) of the accounts that may open the queue dashboard, `/admin/queues`. An account signs in before its address is confirmed, so nobody may sign up with a listed address: sign the account up first, then list it.',
    }),
    ADMIN_QUEUE_ACTIONS: setting({
      schema: z.enum(['true', 'false'], expecting('true or false')).transform((value) => value === 'true'),
      default: 'false',
      meaning: '`true` lets them retry, promote, clean, pause and remove jobs there; otherwise the dashboard is read-only.',
    }),
  },
  read: (values) => ({
    /** The emails in lower case, as accounts keep them. */
    admin: { emails: values.ADMIN_EMAILS.map((email) => email.toLowerCase()), queueActions: values.ADMIN_QUEUE_ACTIONS },
  }),
});
