import { z } from 'zod';
import { setting, settingGroup } from '../config/setting.js';
import { expecting, wholeUpTo } from '../config/value-schemas.js';

const READ_SHARE_HINT = 'a share of the rate from 0.01 to 0.5, e.g. 0.25';

/** The requests to the service that every process shares (request-budget.ts), and the most of them reads may take. */
export const budgetSettings = settingGroup({
  readBy: 'both',
  settings: {
    // Bounded: the budget spaces requests in microseconds of Redis's clock.
    ATHLETE_RATE_LIMIT_PER_S: setting({
      schema: wholeUpTo(1_000_000, 'requests per second up to 1000000, e.g. 10'),
      default: '10',
      meaning:
        "Requests to the service's data endpoints per second (upserts, uploads, the workouts list), across every web and worker process together (one schedule in Redis). A person's change of now goes ahead of any history (up to `SYNC_FRESH_PER_PERSON_PER_MINUTE` of theirs a minute); token requests are not counted. At most 1000000.",
    }),
    ATHLETE_READ_SHARE: setting({
      schema: z.coerce.number(expecting(READ_SHARE_HINT)).min(0.01, expecting(READ_SHARE_HINT)).max(0.5, expecting(READ_SHARE_HINT)),
      default: '0.25',
      meaning:
        "The most of `ATHLETE_RATE_LIMIT_PER_S` the workouts lists people wait for may take, everyone's together, from 0.01 to 0.5. A list's request goes after any change of now and ahead of history, within this share, so however many people read, history keeps the rest of what changes of now leave ([the shares](architecture.md#4-who-waits-when-the-budget-is-short-two-lanes-turns-one-budget)). Set the same for every process.",
    }),
  },
  read: (values) => ({ requestBudget: { ratePerS: values.ATHLETE_RATE_LIMIT_PER_S, readShare: values.ATHLETE_READ_SHARE } }),
});
