import { z } from 'zod';
import { setting, settingGroup } from '../config/setting.js';
import { baseUrl, expecting, nonEmpty, port } from '../config/value-schemas.js';

/** This app's public address: the web serves it, and the workers' mails link to it. */
export const publicAddressSettings = settingGroup({
  readBy: 'both',
  settings: {
    APP_BASE_URL: setting({
      schema: baseUrl,
      meaning:
        "This app's public address. The redirect URI is `APP_BASE_URL/oauth/callback`, registered with the service exactly. When https, cookies are `Secure`.",
    }),
  },
  read: (values) => ({ appBaseUrl: values.APP_BASE_URL }),
});

const TRUST_PROXY_HINT =
  'the number of proxies in front of the app (e.g. 1), or their addresses: comma-separated IPs, CIDR ranges, or loopback, linklocal, uniquelocal';

/**
 * Which proxies' X-Forwarded-* headers to believe (Express's "trust proxy"): a hop count, or the
 * proxies' own addresses. Never "every address": a client could then claim any address and
 * escape the per-address sign-in limits.
 */
const trustProxy = z.union(
  [
    z
      .string()
      .regex(/^\d+$/)
      .transform((hops) => Number(hops)),
    z
      .string()
      .transform((value) => value.split(',').map((entry) => entry.trim()))
      .pipe(z.array(z.union([z.ipv4(), z.ipv6(), z.cidrv4(), z.cidrv6(), z.enum(['loopback', 'linklocal', 'uniquelocal'])]))),
  ],
  expecting(TRUST_PROXY_HINT),
);

/** Where the web process listens, and whom it believes about its clients' addresses. */
export const webSettings = settingGroup({
  readBy: 'web',
  settings: {
    TRUST_PROXY: setting({
      schema: trustProxy,
      unset: '`loopback` when `APP_BASE_URL` is https, else none',
      meaning:
        'The proxies (load balancers) whose `X-Forwarded-For`/`-Proto` headers are believed, for client addresses (sign-in limits) and https: a number of hops, or their addresses (comma-separated IPs, CIDR ranges, `loopback`, `linklocal`, `uniquelocal`). Unset, only a proxy on this machine is believed, so a client that reaches the app directly cannot claim another address. Behind a load balancer on another host, name its addresses: with a hop count, a client that reaches the app directly can claim any address. While `APP_BASE_URL` is https, the first request that arrives as plain http (its proxy not believed, or sending no `X-Forwarded-Proto`) logs a warning: no session cookie can be set for it.',
    }),
    PORT: setting({ schema: port, default: '3000', meaning: 'Port of the web process.' }),
    // Loopback unless told otherwise: a container or a host behind a load balancer sets 0.0.0.0.
    HOST: setting({
      schema: nonEmpty('an interface to listen on, e.g. 127.0.0.1 or 0.0.0.0'),
      default: '127.0.0.1',
      meaning:
        'Interface the web process listens on: only this machine by default (the demo, a proxy on the same host). Set `0.0.0.0` in a container or behind a load balancer on another host.',
    }),
  },
  uses: { APP_BASE_URL: publicAddressSettings.settings.APP_BASE_URL },
  read: (values) => ({
    // Unset: served over https, the app sits behind a TLS-terminating proxy, believed only on this
    // machine (`loopback`); a hop count would believe whatever a client reaching the app directly
    // claims. A proxy on another host must be named. Over http: none.
    trustProxy: values.TRUST_PROXY ?? (values.APP_BASE_URL.startsWith('https:') ? 'loopback' : false),
    port: values.PORT,
    host: values.HOST,
  }),
});
