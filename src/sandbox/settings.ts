import { z } from 'zod';
import { scopeNameSchema } from './oauth/scopes.js';

export const FAULT_KINDS = ['500', '503', '429', 'stall', 'drop'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** `data`: the four data endpoints; `token`: POST /api/oauth/token. */
export const FAULT_TARGETS = ['data', 'token'] as const;
export type FaultTarget = (typeof FAULT_TARGETS)[number];

/**
 * How GET /api/workouts answers (§4.3 shows no response shape): `list` is `{ workouts: [...] }` of the
 * stored workouts; the others are shapes a client must survive: an object holding no list, an array
 * of entries that are odd or not objects at all, and a body that is not JSON.
 */
export const WORKOUTS_LISTINGS = ['list', 'object-without-list', 'odd-entries', 'not-json'] as const;
export type WorkoutsListing = (typeof WORKOUTS_LISTINGS)[number];

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const share = z.number().min(0).max(1, { error: 'expected a share from 0 to 1' });

/** Per target, the share of its requests answered with each kind of fault. */
export const faultRatesSchema = z.strictObject({
  data: z.partialRecord(z.enum(FAULT_KINDS), share),
  token: z.partialRecord(z.enum(FAULT_KINDS), share),
});
export type FaultRates = z.infer<typeof faultRatesSchema>;

const seconds = (minimum: number) => z.int({ error: `expected a whole number of seconds >= ${minimum}` }).min(minimum);

/** Every setting of the sandbox. Where the interface document is silent, the default is the strict choice. */
export const settingsSchema = z.object({
  port: z.int().min(0).max(65535, { error: 'expected a port number from 0 to 65535' }),
  host: z.string().min(1),
  /** `test` serves the /_sandbox admin routes; `service` behaves like the real service only. */
  mode: z.enum(['test', 'service']),
  logLevel: z.enum(LOG_LEVELS),
  clientId: z.string().min(1),
  clientSecret: z.string().min(1),
  redirectUris: z
    .array(z.url().refine((uri) => !uri.includes('#'), { error: 'must not contain a fragment (RFC 6749 §3.1.2)' }))
    .min(1, { error: 'expected at least one redirect URI' }),
  /** Athlete name to approve as at once, skipping the consent page; null shows the page. */
  autoApprove: z.string().min(1).nullable(),
  accessTokenTtlS: seconds(1),
  /** How long past its expiry an access token is still accepted, as services allow for clocks that differ. */
  accessTokenLeewayS: seconds(0),
  codeTtlS: seconds(1),
  rotateRefreshTokens: z.boolean(),
  /** null: refresh tokens never expire and responses carry no refresh_token_expires_in. */
  refreshTokenTtlS: seconds(1).nullable(),
  reuseDetection: z.boolean(),
  reuseGraceS: seconds(0),
  /** Scopes never granted even when asked for. */
  withheldScopes: z.array(scopeNameSchema),
  /**
   * Scopes the data endpoints refuse with 403 insufficient_scope although the token holds them, as
   * when the athlete withdrew them at the service after approving.
   */
  withdrawnScopes: z.array(scopeNameSchema),
  /** The shorthand: this share of each of `faultTargets`' requests, spread evenly over `faultKinds`. */
  faultRate: share,
  faultKinds: z.array(z.enum(FAULT_KINDS)).min(1, { error: `expected one or more of ${FAULT_KINDS.join(', ')}` }),
  faultTargets: z.array(z.enum(FAULT_TARGETS)),
  /** Rates per target and kind, on top of the shorthand's (faults.ts adds them up). */
  faultRates: faultRatesSchema,
  faultSeed: z.int(),
  retryAfterS: seconds(0),
  stallMs: z.int().min(0),
  /** How long the token endpoint holds each answer after applying the request, like a slow service. */
  tokenDelayMs: z.int().min(0),
  maxFitBytes: z.int().min(1),
  workoutsListing: z.enum(WORKOUTS_LISTINGS),
  /**
   * Refuse, with 400 naming them, the fields of a data request the interface document does not
   * show (§2.2 to §2.4 show only part of each record, so the service may take more; off by default).
   */
  strictFields: z.boolean(),
});

export type Settings = z.infer<typeof settingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  port: 4100,
  host: '127.0.0.1',
  mode: 'test',
  logLevel: 'info',
  // The demo app's registration; keep these in step with it.
  clientId: 'athlete-sync-demo',
  clientSecret: 'athlete-sync-demo-secret',
  redirectUris: ['http://localhost:3000/oauth/callback'],
  autoApprove: null,
  accessTokenTtlS: 3600,
  accessTokenLeewayS: 0,
  codeTtlS: 60,
  rotateRefreshTokens: true,
  refreshTokenTtlS: null,
  reuseDetection: true,
  reuseGraceS: 0,
  withheldScopes: [],
  withdrawnScopes: [],
  faultRate: 0,
  faultKinds: [...FAULT_KINDS],
  faultTargets: ['data'],
  faultRates: { data: {}, token: {} },
  faultSeed: 1,
  retryAfterS: 1,
  stallMs: 30_000,
  tokenDelayMs: 0,
  maxFitBytes: 25 * 1024 * 1024,
  workoutsListing: 'list',
  strictFields: false,
};

/** What POST /_sandbox/settings may change: everything but what only matters at start-up. */
export const settingsPatchSchema = settingsSchema.omit({ port: true, host: true, mode: true, logLevel: true }).partial().strict();

/**
 * A target whose shares of faults (the shorthand's and its own) add up to more than 1, if any: one
 * draw per request cannot give each its share. (A hair over 1 is the sum's rounding.)
 */
export function overfullFaultTarget({ faultRate, faultTargets, faultRates }: Settings): FaultTarget | undefined {
  const shareOf = (target: FaultTarget) =>
    (faultTargets.includes(target) ? faultRate : 0) + Object.values(faultRates[target]).reduce((sum, share) => sum + share, 0);
  return FAULT_TARGETS.find((target) => shareOf(target) > 1 + 1e-9);
}

export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

export type PublicSettings = Omit<Settings, 'clientSecret'>;

/** The effective settings as shown by the admin routes: everything but the client secret. */
export function publicSettings({ clientSecret: _secret, ...shown }: Settings): PublicSettings {
  return shown;
}
