import { expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { KIND_SETTING_GROUPS } from '../../src/kinds.js';

/** The settings a process cannot start without, each valid: what a test of the settings changes one at a time. */
export const VALID_ENV = {
  APP_BASE_URL: 'https://sync.example.com/',
  SESSION_SECRET: 's'.repeat(32),
  TOKEN_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  ATHLETE_BASE_URL: 'https://athlete.example.com',
  ATHLETE_CLIENT_ID: 'client',
  ATHLETE_CLIENT_SECRET: 'secret',
};

/** The one line loadConfig refuses `env` with. */
export function configErrorFor(env: Record<string, string>): string {
  try {
    loadConfig(env, KIND_SETTING_GROUPS);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('expected the configuration to be refused');
}

/** `variable` set to `value` is refused, the message saying what it must be. */
export function expectRefusedSaying(variable: string, value: string, expectation: string): void {
  const message = configErrorFor({ ...VALID_ENV, [variable]: value });
  expect(message).toContain(`${variable} must be`);
  expect(message).toContain(expectation);
}

/**
 * The tests that `wrongValues` holds a wrong value of each of the `declared` settings, and that
 * each is refused in the one-line form: the variable, then what it must be, never zod's own wording.
 */
export function itRefusesEachWrongValue(declared: string[], wrongValues: Record<string, string>): void {
  it('has a wrong value to try for each setting', () => {
    expect(Object.keys(wrongValues).sort()).toEqual([...declared].sort());
  });

  it.each(Object.entries(wrongValues))('refuses %s=%j in the one-line form: the variable, then what it must be', (variable, value) => {
    const message = configErrorFor({ ...VALID_ENV, [variable]: value });
    expect(message).toMatch(new RegExp(`^Invalid configuration: ${variable} must be [^\n]+$`));
    // Not zod's own wording, which names types and patterns rather than what to set.
    expect(message).not.toMatch(/Invalid (input|option|string)|expected|pattern/);
  });
}
