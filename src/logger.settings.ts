import { z } from 'zod';
import { setting, settingGroup } from './config/setting.js';
import { expecting } from './config/value-schemas.js';

export const logSettings = settingGroup({
  readBy: 'both',
  settings: {
    LOG_LEVEL: setting({
      schema: z.enum(
        ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'],
        expecting('fatal, error, warn, info, debug, trace or silent'),
      ),
      default: 'info',
      meaning: 'pino level: `fatal` … `trace`, or `silent`.',
    }),
  },
  read: (values) => ({ logLevel: values.LOG_LEVEL }),
});
