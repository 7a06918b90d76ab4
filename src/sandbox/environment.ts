import { z } from 'zod';
import { DEFAULT_SETTINGS, overfullFaultTarget, settingsSchema, type Settings } from './settings.js';

const integer = z
  .string()
  .regex(/^-?\d+$/, { error: 'expected an integer' })
  .transform(Number);
const decimal = z
  .string()
  .regex(/^\d+(\.\d+)?$/, { error: 'expected a number such as 0.25' })
  .transform(Number);
const boolean = z.stringbool({ truthy: ['true', '1'], falsy: ['false', '0'], error: 'expected true, false, 1 or 0' });
const text = z.string();
const listSplitBy = (separator: string) =>
  z.string().transform((value) =>
    value
      .split(separator)
      .map((item) => item.trim())
      .filter((item) => item !== ''),
  );

const FAULT_RATES_PART = /^\w+:\w+=\d+(\.\d+)?(,\w+=\d+(\.\d+)?)*$/;
const FAULT_RATES_FORMAT = 'expected target:kind=share,... such as data:500=0.1,429=0.05 token:500=0.05';

/**
 * `data:500=0.1,429=0.05 token:500=0.05`: per target (space-separated), kind=share pairs (comma-separated).
 * Built as plain entries, so that a target such as `__proto__` or `constructor` is a key the schema refuses.
 */
const faultRates = z.string().transform((value, context) => {
  const parts = value.split(' ').filter((part) => part !== '');
  if (!parts.every((part) => FAULT_RATES_PART.test(part))) {
    context.addIssue({ code: 'custom', message: FAULT_RATES_FORMAT });
    return z.NEVER;
  }
  const byTarget = parts.map((part) => {
    const [target, pairs] = part.split(':') as [string, string];
    return [target, pairs.split(',').map((pair) => pair.split('=') as [string, string])] as const;
  });
  const names = byTarget.flatMap(([target, pairs]) => [target, ...pairs.map(([kind]) => `${target}:${kind}`)]);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice !== undefined) {
    context.addIssue({ code: 'custom', message: `names ${twice} twice` });
    return z.NEVER;
  }
  const rates = byTarget.map(
    ([target, pairs]) => [target, Object.fromEntries(pairs.map(([kind, share]) => [kind, Number(share)] as const))] as const,
  );
  return { data: {}, token: {}, ...Object.fromEntries(rates) };
});

/** Each environment variable, the setting it fills and how its text is read. */
const ENVIRONMENT_VARIABLES = {
  SANDBOX_PORT: ['port', integer],
  SANDBOX_HOST: ['host', text],
  SANDBOX_MODE: ['mode', text],
  SANDBOX_LOG_LEVEL: ['logLevel', text],
  SANDBOX_CLIENT_ID: ['clientId', text],
  SANDBOX_CLIENT_SECRET: ['clientSecret', text],
  SANDBOX_REDIRECT_URIS: ['redirectUris', listSplitBy(',')],
  SANDBOX_AUTO_APPROVE: ['autoApprove', text],
  SANDBOX_ACCESS_TOKEN_TTL_S: ['accessTokenTtlS', integer],
  SANDBOX_ACCESS_TOKEN_LEEWAY_S: ['accessTokenLeewayS', integer],
  SANDBOX_CODE_TTL_S: ['codeTtlS', integer],
  SANDBOX_ROTATE_REFRESH_TOKENS: ['rotateRefreshTokens', boolean],
  SANDBOX_REFRESH_TOKEN_TTL_S: ['refreshTokenTtlS', integer],
  SANDBOX_REUSE_DETECTION: ['reuseDetection', boolean],
  SANDBOX_REUSE_GRACE_S: ['reuseGraceS', integer],
  SANDBOX_WITHHELD_SCOPES: ['withheldScopes', listSplitBy(' ')],
  SANDBOX_WITHDRAWN_SCOPES: ['withdrawnScopes', listSplitBy(' ')],
  SANDBOX_FAULT_RATE: ['faultRate', decimal],
  SANDBOX_FAULT_KINDS: ['faultKinds', listSplitBy(',')],
  SANDBOX_FAULT_TARGETS: ['faultTargets', listSplitBy(',')],
  SANDBOX_FAULT_RATES: ['faultRates', faultRates],
  SANDBOX_FAULT_SEED: ['faultSeed', integer],
  SANDBOX_RETRY_AFTER_S: ['retryAfterS', integer],
  SANDBOX_STALL_MS: ['stallMs', integer],
  SANDBOX_TOKEN_DELAY_MS: ['tokenDelayMs', integer],
  SANDBOX_MAX_FIT_BYTES: ['maxFitBytes', integer],
  SANDBOX_WORKOUTS_LISTING: ['workoutsListing', text],
  SANDBOX_STRICT_FIELDS: ['strictFields', boolean],
} as const satisfies Record<string, readonly [keyof Settings, z.ZodType<unknown, string>]>;

export type EnvironmentResult = { ok: true; settings: Settings } | { ok: false; problem: string };

/**
 * Settings from environment variables over the strict defaults.
 * An empty variable counts as unset. A bad one gives one line naming it and what it expects.
 */
export function settingsFromEnvironment(environment: NodeJS.ProcessEnv): EnvironmentResult {
  const given: Partial<Record<keyof Settings, unknown>> = {};
  for (const [name, [key, reader]] of Object.entries(ENVIRONMENT_VARIABLES)) {
    const text = environment[name];
    if (text === undefined || text === '') continue;
    const value = reader.safeParse(text);
    if (!value.success) return { ok: false, problem: describeProblem(name, value.error) };
    given[key] = value.data;
  }
  const settings = settingsSchema.safeParse({ ...DEFAULT_SETTINGS, ...given });
  if (!settings.success) {
    const key = settings.error.issues[0]?.path[0];
    return { ok: false, problem: describeProblem(variableNameOf(key), settings.error) };
  }
  const overfull = overfullFaultTarget(settings.data);
  if (overfull !== undefined) {
    return {
      ok: false,
      problem: `Invalid SANDBOX_FAULT_RATES: ${overfull}'s shares, SANDBOX_FAULT_RATE's included, add up to more than 1`,
    };
  }
  return { ok: true, settings: settings.data };
}

function variableNameOf(key: PropertyKey | undefined): string {
  const entry = Object.entries(ENVIRONMENT_VARIABLES).find(([, [settingKey]]) => settingKey === key);
  return entry?.[0] ?? 'environment';
}

function describeProblem(variableName: string, error: z.ZodError): string {
  return `Invalid ${variableName}: ${error.issues[0]?.message ?? 'unreadable value'}`;
}
