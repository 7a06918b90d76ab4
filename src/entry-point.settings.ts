import { setting, settingGroup } from './config/setting.js';
import { wholeUpTo } from './config/value-schemas.js';
import { serviceSettings } from './provider/provider.settings.js';

/** How long a process waits for what it needs at start, and for its work at a stop. */
export const lifetimeSettings = settingGroup({
  readBy: 'both',
  settings: {
    // Bounded: a wait past a timer's range (about 24 days) would be cut to 1 ms, failing at once.
    STARTUP_TIMEOUT_S: setting({
      schema: wholeUpTo(3600, 'a number of seconds up to 3600, e.g. 20'),
      default: '20',
      meaning:
        'At start, how long (at most 3600 s) the web and worker processes wait for Redis and the database (retrying quietly) before they exit with code 1 and one line naming what they could not reach and where.',
    }),
    SHUTDOWN_TIMEOUT_MS: setting({
      schema: wholeUpTo(3_600_000, 'milliseconds up to 3600000 (an hour), e.g. 45000'),
      unset: '3 × `ATHLETE_TIMEOUT_S` (45000)',
      meaning:
        "On SIGTERM or SIGINT, how long a process may take to finish its work before it exits anyway (code 1); a second signal exits at once. The default lets a token refresh with its one retry and a request of `ATHLETE_TIMEOUT_S` finish; a large file's upload may be given longer (`ATHLETE_UPLOAD_MIN_BYTES_PER_S`), and a stop that cuts it short is like a kill (the turn is taken up again, its entries still dirty). Give your orchestrator's grace period a little more. At most an hour.",
    }),
  },
  uses: { ATHLETE_TIMEOUT_S: serviceSettings.settings.ATHLETE_TIMEOUT_S },
  read: (values) => ({
    /** How long the web and workers wait at start for Redis and the database before they give up. */
    startupTimeoutS: values.STARTUP_TIMEOUT_S,
    // Unset: long enough for a request and a token refresh with its one retry without an answer,
    // each abandoned after ATHLETE_TIMEOUT_S; a large file's upload may be given longer
    // (ATHLETE_UPLOAD_MIN_BYTES_PER_S), and a stop cut shorter is like a kill.
    shutdownTimeoutMs: values.SHUTDOWN_TIMEOUT_MS ?? 3 * values.ATHLETE_TIMEOUT_S * 1000,
  }),
});
