import { describe, expect, it } from 'vitest';
import { loadWebConfig, loadWorkerConfig, type WebConfig } from '../../src/config.js';
import { mealSettings } from '../../src/nutrition/nutrition.settings.js';
import { configErrorFor, itRefusesEachWrongValue, VALID_ENV } from '../helpers/settings.js';

/** A wrong value for every setting of the meals. */
const WRONG_VALUES: Record<string, string> = {
  ABSORPTION_TYPES: 'RAPID,slow',
  MEAL_MAX_ITEMS_PER_DAY: '0',
  MEAL_NAME_MAX_LENGTH: 'long',
  MEAL_MAX_GRAMS: '0',
  MEAL_MAX_KCAL: '-1',
  MEALS_BATCH_MAX: '0',
};

function mealsOf(config: Pick<WebConfig, 'kindSettings'>) {
  return config.kindSettings.of(mealSettings).meals;
}

describe('the settings of the meals', () => {
  itRefusesEachWrongValue(Object.keys(mealSettings.settings), WRONG_VALUES);

  it('take RAPID alone, 100 items a day of 1000 g and 10000 kcal at most, and imports of 500 items, unless told otherwise', () => {
    expect(mealsOf(loadWebConfig(VALID_ENV, [mealSettings]))).toEqual({
      absorptionTypes: ['RAPID'],
      maxItemsPerDay: 100,
      maxNameLength: 120,
      maxGrams: 1000,
      maxKcal: 10_000,
      batchMax: 500,
    });
    expect(
      mealsOf(loadWebConfig({ ...VALID_ENV, ABSORPTION_TYPES: ' RAPID, SLOW ,', MEALS_BATCH_MAX: '2000' }, [mealSettings])),
    ).toMatchObject({
      absorptionTypes: ['RAPID', 'SLOW'],
      batchMax: 2000,
    });
  });

  it('refuse an import of more than 2000 items: one import is one transaction', () => {
    expect(configErrorFor({ ...VALID_ENV, MEALS_BATCH_MAX: '2001' })).toMatch(/^Invalid configuration: MEALS_BATCH_MAX must be [^\n]+$/);
  });

  it('are read by the web processes only: in a worker a mistake in them stops nothing', () => {
    expect(() => loadWebConfig({ ...VALID_ENV, MEALS_BATCH_MAX: 'lots' }, [mealSettings])).toThrow('MEALS_BATCH_MAX must be');
    const worker = loadWorkerConfig({ ...VALID_ENV, MEALS_BATCH_MAX: 'lots' }, [mealSettings]);
    expect(() => mealsOf(worker)).toThrow('not given');
  });
});
