import { setting, settingGroup } from '../config/setting.js';
import { nonEmpty, port } from '../config/value-schemas.js';

/** Prometheus metrics of each process, on a port of their own. */
export const metricsSettings = settingGroup({
  readBy: 'both',
  settings: {
    // Off unless set: metrics tell whoever can reach them how busy the app is.
    METRICS_PORT: setting({
      schema: port,
      unset: '(off)',
      meaning: 'Serve Prometheus metrics at `/metrics` on this port (see Monitoring). Each process on one machine needs its own.',
    }),
    METRICS_HOST: setting({
      schema: nonEmpty('an interface to listen on, e.g. 127.0.0.1'),
      default: '127.0.0.1',
      meaning: 'Interface the metrics port listens on.',
    }),
  },
  /** `port` undefined: not served. */
  read: (values) => ({ metrics: { port: values.METRICS_PORT, host: values.METRICS_HOST } }),
});
