import { describe, expect, it } from 'vitest';
import { loadWebConfig, loadWorkerConfig, type WebConfig } from '../../src/config.js';
import { workoutReadSettings } from '../../src/workouts/workouts.settings.js';
import { itRefusesEachWrongValue, VALID_ENV } from '../helpers/settings.js';

/** A wrong value for every setting of the workouts list. */
const WRONG_VALUES: Record<string, string> = {
  WORKOUTS_CACHE_S: '-1',
  WORKOUTS_READS_PER_PERSON_PER_MINUTE: '0',
};

function readsOf(config: Pick<WebConfig, 'kindSettings'>) {
  return config.kindSettings.of(workoutReadSettings).workoutReads;
}

describe('the settings of the workouts list', () => {
  itRefusesEachWrongValue(Object.keys(workoutReadSettings.settings), WRONG_VALUES);

  it('answer a person’s list again for 10 s and let 6 lists a minute ask the service, by default, or as set', () => {
    expect(readsOf(loadWebConfig(VALID_ENV, [workoutReadSettings]))).toEqual({ cacheMs: 10_000, perPersonPerMinute: 6 });
    const changed = { WORKOUTS_CACHE_S: '0', WORKOUTS_READS_PER_PERSON_PER_MINUTE: '20' };
    expect(readsOf(loadWebConfig({ ...VALID_ENV, ...changed }, [workoutReadSettings]))).toEqual({ cacheMs: 0, perPersonPerMinute: 20 });
  });

  it('are read by the web processes only', () => {
    const worker = loadWorkerConfig({ ...VALID_ENV, WORKOUTS_CACHE_S: '-1' }, [workoutReadSettings]);
    expect(() => readsOf(worker)).toThrow('not given');
  });
});
