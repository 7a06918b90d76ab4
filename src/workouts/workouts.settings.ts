import { z } from 'zod';
import { setting, settingGroup } from '../config/setting.js';
import { expecting, wholeUpTo } from '../config/value-schemas.js';

const WORKOUTS_CACHE_HINT = 'a number of seconds from 0 to 3600, e.g. 10';

/** How often a person's workouts list asks the service (workouts.ts). */
export const workoutReadSettings = settingGroup({
  readBy: 'web',
  settings: {
    WORKOUTS_CACHE_S: setting({
      schema: z.coerce
        .number(expecting(WORKOUTS_CACHE_HINT))
        .int(expecting(WORKOUTS_CACHE_HINT))
        .min(0, expecting(WORKOUTS_CACHE_HINT))
        .max(3600, expecting(WORKOUTS_CACHE_HINT)),
      default: '10',
      meaning:
        "A person's workouts list fetched this many seconds ago or less, through any web process, is answered again as it was (`stale: false`, its `fetchedAt`), without asking the service; `0`: every list asks. At most 3600.",
    }),
    WORKOUTS_READS_PER_PERSON_PER_MINUTE: setting({
      schema: wholeUpTo(600, 'a number of lists up to 600, e.g. 6'),
      default: '6',
      meaning:
        'Lists of one person that may ask the service in a minute (each up to 4 tries within its 3 s), counted in Redis; past it, the last list fetched is answered, `stale: true` with `staleReason: "too_many_requests"`, or, with none known, 429 `too_many_requests` with `Retry-After`. At most 600.',
    }),
  },
  read: (values) => ({
    workoutReads: { cacheMs: values.WORKOUTS_CACHE_S * 1000, perPersonPerMinute: values.WORKOUTS_READS_PER_PERSON_PER_MINUTE },
  }),
});
