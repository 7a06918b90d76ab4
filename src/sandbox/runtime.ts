import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import type { Clock } from './clock.js';
import type { Settings, SettingsPatch } from './settings.js';
import { createState, type SandboxState } from './state.js';

/** What every route of the sandbox works with. Settings and state change only through the functions below. */
export interface SandboxRuntime {
  readonly clock: Clock;
  readonly startupSettings: Settings;
  settings: Settings;
  state: SandboxState;
  /** Seeded from `faultSeed`, so the same requests meet the same faults. */
  faultRandom: RandomGenerator;
}

export function createRuntime(settings: Settings, clock: Clock): SandboxRuntime {
  return {
    clock,
    startupSettings: settings,
    settings,
    state: createState(),
    faultRandom: xoroshiro128plus(settings.faultSeed),
  };
}

/** Applies a validated patch; the fault sequence starts over from the (possibly new) seed. */
export function updateSettings(runtime: SandboxRuntime, patch: SettingsPatch): void {
  runtime.settings = { ...runtime.settings, ...patch };
  runtime.faultRandom = xoroshiro128plus(runtime.settings.faultSeed);
}

/** Forgets all data, grants and counters, and goes back to the start-up settings. */
export function resetRuntime(runtime: SandboxRuntime): void {
  runtime.settings = runtime.startupSettings;
  runtime.state = createState();
  runtime.faultRandom = xoroshiro128plus(runtime.settings.faultSeed);
}
