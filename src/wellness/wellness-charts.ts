import type { DateStyle } from '../dates/date-style.js';
import { addDays } from '../dates/local-today.js';
import { fieldNames } from '../fields/field-values.js';
import type { NumericField } from '../fields/numeric-field.js';
import { dayChart, type DayChart } from '../charts/day-chart.js';
import { WELLNESS_MEASUREMENTS } from './wellness.fields.js';
import type { WellnessRecordView } from './wellness.js';

/** How many days each measurement's chart shows, ending today. */
export const CHART_DAYS = 30;

export interface MeasurementChart {
  id: string;
  title: string;
  chart: DayChart;
}

/** The first day of the charts ending `today`. */
export function firstChartDay(today: string): string {
  return addDays(today, 1 - CHART_DAYS);
}

/** A chart per declared measurement of the person's last 30 days, in the order declared. */
export function wellnessCharts(records: readonly WellnessRecordView[], today: string, style: DateStyle): MeasurementChart[] {
  return fieldNames(WELLNESS_MEASUREMENTS).map((name) => {
    const { label, typedAs }: NumericField = WELLNESS_MEASUREMENTS[name];
    const values = new Map(records.flatMap((record) => (record[name] === undefined ? [] : [[record.date, record[name]]])));
    return {
      id: `chart-${name}`,
      title: label,
      chart: dayChart({
        from: firstChartDay(today),
        to: today,
        values,
        shape: 'line',
        title: label,
        valueWords: typedAs ? hoursAndMinutes : tenths,
        dayWords: (date) => style.day(date),
      }),
    };
  });
}

/** A duration of seconds as people say it: "7 h 30 min". */
function hoursAndMinutes(seconds: number): string {
  const minutes = Math.round(seconds / 60);
  return `${String(Math.floor(minutes / 60))} h ${String(minutes % 60)} min`;
}

const tenths = (value: number) => String(Math.round(value * 10) / 10);
