import { describe, expect, it } from 'vitest';
import { settingsFromEnvironment } from '../../src/sandbox/environment.js';
import { DEFAULT_SETTINGS } from '../../src/sandbox/settings.js';

describe('settings from the environment', () => {
  it('are the strict defaults when nothing is set', () => {
    expect(settingsFromEnvironment({})).toEqual({ ok: true, settings: DEFAULT_SETTINGS });
  });

  it('read every kind of value', () => {
    const result = settingsFromEnvironment({
      SANDBOX_PORT: '0',
      SANDBOX_MODE: 'service',
      SANDBOX_REDIRECT_URIS: 'http://localhost:3000/cb, http://127.0.0.1:3000/cb',
      SANDBOX_AUTO_APPROVE: 'Ada',
      SANDBOX_ROTATE_REFRESH_TOKENS: '0',
      SANDBOX_REUSE_DETECTION: 'false',
      SANDBOX_REFRESH_TOKEN_TTL_S: '86400',
      SANDBOX_WITHHELD_SCOPES: 'profile:write  nutrition:write',
      SANDBOX_FAULT_RATE: '0.25',
      SANDBOX_FAULT_KINDS: '429,drop',
      SANDBOX_FAULT_TARGETS: 'data,token',
      SANDBOX_FAULT_RATES: 'data:500=0.1,drop=0.03 token:500=0.05',
      SANDBOX_FAULT_SEED: '-3',
      SANDBOX_TOKEN_DELAY_MS: '1500',
      SANDBOX_WITHDRAWN_SCOPES: 'workout:read',
      SANDBOX_WORKOUTS_LISTING: 'not-json',
      SANDBOX_STRICT_FIELDS: 'true',
    });
    expect(result).toEqual({
      ok: true,
      settings: {
        ...DEFAULT_SETTINGS,
        port: 0,
        mode: 'service',
        redirectUris: ['http://localhost:3000/cb', 'http://127.0.0.1:3000/cb'],
        autoApprove: 'Ada',
        rotateRefreshTokens: false,
        reuseDetection: false,
        refreshTokenTtlS: 86400,
        withheldScopes: ['profile:write', 'nutrition:write'],
        faultRate: 0.25,
        faultKinds: ['429', 'drop'],
        faultTargets: ['data', 'token'],
        faultRates: { data: { '500': 0.1, drop: 0.03 }, token: { '500': 0.05 } },
        faultSeed: -3,
        tokenDelayMs: 1500,
        withdrawnScopes: ['workout:read'],
        workoutsListing: 'not-json',
        strictFields: true,
      },
    });
  });

  it('refuse fault rates that, with SANDBOX_FAULT_RATE, add up to more than 1 for a target', () => {
    expect(settingsFromEnvironment({ SANDBOX_FAULT_RATE: '0.8', SANDBOX_FAULT_RATES: 'data:500=0.5' })).toEqual({
      ok: false,
      problem: "Invalid SANDBOX_FAULT_RATES: data's shares, SANDBOX_FAULT_RATE's included, add up to more than 1",
    });
    expect(settingsFromEnvironment({ SANDBOX_FAULT_RATE: '0.8', SANDBOX_FAULT_RATES: 'token:500=0.5' }).ok).toBe(true);
    expect(settingsFromEnvironment({ SANDBOX_FAULT_RATES: 'data:500=0.1,429=0.2,drop=0.7' }).ok).toBe(true);
  });

  it('take an empty variable as unset', () => {
    expect(settingsFromEnvironment({ SANDBOX_REFRESH_TOKEN_TTL_S: '' })).toEqual({ ok: true, settings: DEFAULT_SETTINGS });
  });

  it.each([
    ['SANDBOX_PORT', 'abc', 'expected an integer'],
    ['SANDBOX_PORT', '70000', 'port number'],
    ['SANDBOX_MODE', 'prod', '"test"|"service"'],
    ['SANDBOX_ROTATE_REFRESH_TOKENS', 'yes', 'expected true, false, 1 or 0'],
    ['SANDBOX_ACCESS_TOKEN_TTL_S', '0', 'seconds >= 1'],
    ['SANDBOX_FAULT_RATE', '1.5', 'from 0 to 1'],
    ['SANDBOX_FAULT_RATE', 'often', 'expected a number'],
    ['SANDBOX_FAULT_KINDS', '500,404', '"stall"'],
    ['SANDBOX_FAULT_RATES', 'data:500', 'expected target:kind=share'],
    ['SANDBOX_FAULT_RATES', 'data:404=0.1', '"404"'],
    ['SANDBOX_FAULT_RATES', 'disk:500=0.1', 'disk'],
    ['SANDBOX_FAULT_RATES', 'data:500=2', 'from 0 to 1'],
    ['SANDBOX_FAULT_RATES', 'data:500=0.1:x', 'expected target:kind=share'],
    ['SANDBOX_FAULT_RATES', 'data:500=0.1=2', 'expected target:kind=share'],
    ['SANDBOX_FAULT_RATES', 'constructor:500=0.1', 'constructor'],
    ['SANDBOX_FAULT_RATES', '__proto__:500=0.1', '__proto__'],
    ['SANDBOX_FAULT_RATES', 'data:500=0.1,500=0.2', 'names data:500 twice'],
    ['SANDBOX_FAULT_RATES', 'token:500=0.1 token:429=0.1', 'names token twice'],
    ['SANDBOX_FAULT_RATES', 'data:500=0.6,429=0.6', "data's shares, SANDBOX_FAULT_RATE's included, add up to more than 1"],
    ['SANDBOX_WITHHELD_SCOPES', 'calendar:read', 'profile:read'],
    ['SANDBOX_REDIRECT_URIS', 'not a url', 'URL'],
    ['SANDBOX_REDIRECT_URIS', 'http://localhost:3000/cb#x', 'fragment'],
  ])('refuse %s=%s in one line naming the variable', (name, value, expectation) => {
    const result = settingsFromEnvironment({ [name]: value });
    expect(result.ok).toBe(false);
    const problem = result.ok ? '' : result.problem;
    expect(problem).toMatch(new RegExp(`^Invalid ${name}: `));
    expect(problem).toContain(expectation);
    expect(problem).not.toContain('\n');
  });
});
