import { DateTime, Interval } from 'luxon';

/**
 * A small chart of one number a day, drawn by the server as SVG, with the numbers as text for
 * screen readers (views/day-chart.eta):
 * - `line`, a measurement: its scale fits its values, and a day without one is a gap;
 * - `bars`, an amount (a day's energy): bars from zero, none on a day without one;
 * - `spark`, a count (entries received): a line from zero through every day, a day without a count at zero.
 */
export interface DayChartInput {
  /** The first and last days shown, YYYY-MM-DD: every day between them has its place, recorded or not. */
  from: string;
  to: string;
  /** The recorded values by day. */
  values: ReadonlyMap<string, number>;
  shape: 'line' | 'bars' | 'spark';
  /** What the chart shows: "HRV (ms)". */
  title: string;
  /** A value as the text says it: "71.5", "7 h 30 min". */
  valueWords(value: number): string;
  /** A day as the text says it, in the person's style. */
  dayWords(date: string): string;
}

export interface DayChart {
  width: number;
  height: number;
  /** One sentence: what it shows, over which days, the range and the latest value. */
  summary: string;
  /** The line's path (a measurement's broken at days without a value); empty for bars. */
  path: string;
  /** A dot per recorded day of a measurement (a lone day between gaps shows as its dot). */
  dots: Array<{ x: number; y: number }>;
  bars: Array<{ x: number; y: number; width: number; height: number }>;
  /** The recorded days and their values, oldest first, for the text beside the picture. */
  rows: Array<{ day: string; value: string }>;
  /** The latest recorded value in words, if any. */
  latest?: string;
  /** An amount's or a count's sum over the days shown, in words. */
  total?: string;
  firstDay: string;
  lastDay: string;
}

const WIDTH = 300;
const HEIGHT = 64;
/** Room at the top and bottom of a line, so a dot at the highest or lowest value is whole. */
const INSET = 4;

/** Every day from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const interval = Interval.fromDateTimes(DateTime.fromISO(from, { zone: 'utc' }), DateTime.fromISO(to, { zone: 'utc' }).plus({ days: 1 }));
  return interval.splitBy({ days: 1 }).map((day) => day.start!.toISODate());
}

export function dayChart(input: DayChartInput): DayChart {
  const days = daysBetween(input.from, input.to);
  const valueOf = (day: string) => input.values.get(day) ?? (input.shape === 'spark' ? 0 : undefined);
  const recorded = days.flatMap((day, index) => {
    const value = valueOf(day);
    return value === undefined ? [] : [{ day, index, value }];
  });
  const slot = WIDTH / days.length;
  const values = recorded.map((entry) => entry.value);
  const [low, high] = input.shape === 'line' ? [Math.min(...values), Math.max(...values)] : [0, Math.max(0, ...values)];
  const inset = input.shape === 'bars' ? 0 : INSET;
  const y = (value: number) => round(high === low ? HEIGHT / 2 : inset + ((high - value) / (high - low)) * (HEIGHT - 2 * inset));
  const x = (index: number) => round(slot * index + slot / 2);
  const points = recorded.map((entry) => ({ index: entry.index, x: x(entry.index), y: y(entry.value) }));
  const latest = recorded.findLast((entry) => entry.value !== 0 || input.shape === 'line');
  return {
    width: WIDTH,
    height: HEIGHT,
    summary: summaryOf(input, recorded, latest),
    path: input.shape === 'bars' ? '' : linePath(points),
    dots: input.shape === 'line' ? points.map(({ x: cx, y: cy }) => ({ x: cx, y: cy })) : [],
    bars:
      input.shape === 'bars'
        ? recorded.map((entry) => {
            const top = y(entry.value);
            return { x: round(slot * entry.index + slot * 0.15), y: top, width: round(slot * 0.7), height: round(HEIGHT - top) };
          })
        : [],
    rows: recorded.map((entry) => ({ day: input.dayWords(entry.day), value: input.valueWords(entry.value) })),
    ...(latest && { latest: input.valueWords(latest.value) }),
    ...(input.shape !== 'line' && { total: input.valueWords(values.reduce((sum, value) => sum + value, 0)) }),
    firstDay: input.dayWords(input.from),
    lastDay: input.dayWords(input.to),
  };
}

/** Straight lines between recorded days that follow each other; a day without a value breaks the line. */
function linePath(points: Array<{ index: number; x: number; y: number }>): string {
  return points.map((point, at) => `${at > 0 && points[at - 1]!.index === point.index - 1 ? 'L' : 'M'}${point.x} ${point.y}`).join(' ');
}

type Recorded = { day: string; value: number };

/** "HRV (ms), Sun, 25 Oct 2026 to Mon, 23 Nov 2026: on 2 days, from 40 to 61.5; latest 61.5 on Mon, 23 Nov 2026." */
function summaryOf(input: DayChartInput, recorded: Recorded[], latest: Recorded | undefined): string {
  const span = `${input.title}, ${input.dayWords(input.from)} to ${input.dayWords(input.to)}`;
  if (!latest) return `${span}: none.`;
  const values = recorded.map((entry) => entry.value);
  const range =
    input.shape === 'line'
      ? `from ${input.valueWords(Math.min(...values))} to ${input.valueWords(Math.max(...values))}`
      : `${input.valueWords(values.reduce((sum, value) => sum + value, 0))} in all`;
  const count = values.filter((value) => value !== 0 || input.shape === 'line').length;
  const days = count === 1 ? '1 day' : `${String(count)} days`;
  return `${span}: on ${days}, ${range}; latest ${input.valueWords(latest.value)} on ${input.dayWords(latest.day)}.`;
}

const round = (value: number) => Math.round(value * 10) / 10;
