import { describe, expect, it } from 'vitest';
import { wellnessRecord } from '../../src/wellness/wellness-record.js';

describe('the wellness record sent to the service', () => {
  it('carries the date and every measurement entered, and in rawJson what was entered', () => {
    const entered = { hrv: 48.5, restingHr: 52, sleepSecs: 27_000, weight: 71.3, vo2max: 55.2 };
    expect(wellnessRecord('2026-11-20', entered)).toEqual({
      date: '2026-11-20',
      ...entered,
      rawJson: { source: 'athlete-sync', ...entered },
    });
  });

  it('leaves out a measurement not entered, never sending null', () => {
    const record = wellnessRecord('2026-11-20', { sleepSecs: 0 });
    expect(JSON.parse(JSON.stringify(record))).toEqual({
      date: '2026-11-20',
      sleepSecs: 0,
      rawJson: { source: 'athlete-sync', sleepSecs: 0 },
    });
  });
});
