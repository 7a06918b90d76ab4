import { describe, expect, it } from 'vitest';
import { dayChart, daysBetween, type DayChartInput } from '../../src/charts/day-chart.js';

const base: DayChartInput = {
  from: '2026-11-01',
  to: '2026-11-05',
  values: new Map(),
  shape: 'line',
  title: 'HRV (ms)',
  valueWords: (value) => String(value),
  dayWords: (date) => date.slice(5),
};

describe('a chart of one number a day', () => {
  it('gives every day from the first to the last its place, across a change of month and year', () => {
    expect(daysBetween('2026-12-30', '2027-01-02')).toEqual(['2026-12-30', '2026-12-31', '2027-01-01', '2027-01-02']);
    expect(daysBetween('2026-03-28', '2026-03-30')).toHaveLength(3);
  });

  it('draws a line through the recorded days, broken at a day without a value, highest value at the top', () => {
    const chart = dayChart({
      ...base,
      values: new Map([
        ['2026-11-01', 40],
        ['2026-11-02', 60],
        ['2026-11-04', 50],
      ]),
    });
    expect(chart.path).toBe('M30 60 L90 4 M210 32');
    expect(chart.dots).toEqual([
      { x: 30, y: 60 },
      { x: 90, y: 4 },
      { x: 210, y: 32 },
    ]);
    expect(chart.bars).toEqual([]);
  });

  it('draws bars from zero for an amount, each within its day’s place', () => {
    const chart = dayChart({
      ...base,
      shape: 'bars',
      values: new Map([
        ['2026-11-02', 1000],
        ['2026-11-05', 2000],
      ]),
    });
    expect(chart.bars).toEqual([
      { x: 69, y: 32, width: 42, height: 32 },
      { x: 249, y: 0, width: 42, height: 64 },
    ]);
    expect(chart.path).toBe('');
    for (const bar of chart.bars) expect(bar.x + bar.width).toBeLessThanOrEqual(chart.width);
  });

  it('puts a line of equal values, or a single one, across the middle', () => {
    expect(dayChart({ ...base, values: new Map([['2026-11-03', 48]]) }).dots).toEqual([{ x: 150, y: 32 }]);
  });

  it('says what it shows in words, and lists the recorded days’ numbers as text', () => {
    const chart = dayChart({
      ...base,
      values: new Map([
        ['2026-11-01', 40],
        ['2026-11-04', 50.5],
      ]),
    });
    expect(chart.summary).toBe('HRV (ms), 11-01 to 11-05: on 2 days, from 40 to 50.5; latest 50.5 on 11-04.');
    expect(chart.rows).toEqual([
      { day: '11-01', value: '40' },
      { day: '11-04', value: '50.5' },
    ]);
    expect(chart.latest).toBe('50.5');
    expect([chart.firstDay, chart.lastDay]).toEqual(['11-01', '11-05']);
  });

  it('draws a count through every day from zero, a day without one at zero, and sums it up by its total', () => {
    const chart = dayChart({
      ...base,
      shape: 'spark',
      title: 'Received',
      values: new Map([
        ['2026-11-02', 4],
        ['2026-11-03', 2],
      ]),
    });
    expect(chart.path).toBe('M30 60 L90 4 L150 32 L210 60 L270 60');
    expect(chart.dots).toEqual([]);
    expect(chart.rows.map((row) => row.value)).toEqual(['0', '4', '2', '0', '0']);
    expect(chart.summary).toBe('Received, 11-01 to 11-05: on 2 days, 6 in all; latest 2 on 11-03.');
    expect(chart.total).toBe('6');
  });

  it('sums an amount up by its total, and says when nothing was recorded', () => {
    const bars = dayChart({
      ...base,
      shape: 'bars',
      title: 'Calories',
      values: new Map([
        ['2026-11-02', 1000],
        ['2026-11-05', 2000],
      ]),
    });
    expect(bars.summary).toBe('Calories, 11-01 to 11-05: on 2 days, 3000 in all; latest 2000 on 11-05.');
    const empty = dayChart(base);
    expect(empty.summary).toBe('HRV (ms), 11-01 to 11-05: none.');
    expect(empty).toMatchObject({ path: '', dots: [], rows: [] });
    expect(empty.latest).toBeUndefined();
  });
});
