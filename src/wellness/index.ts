import type { Kind } from '../kinds/kind.js';
import { byDate, rowOfPage } from '../kinds/entry-presentations.js';
import { calendarDateSchema } from '../dates/supported-dates.js';
import { wellnessApi } from './wellness.api.js';
import { wellnessExport } from './wellness.export.js';
import { WELLNESS_MEASUREMENT_FIELDS, WELLNESS_MEASUREMENTS } from './wellness.fields.js';
import { createWellness } from './wellness.js';
import { wellnessPages } from './wellness.pages.js';
import { wellnessSender } from './wellness-sender.js';
import { wellnessWorkload } from './wellness.workload.js';

/** What Wellness covers, in words: "HRV, resting heart rate, sleep, …" as declared. */
const WELLNESS_WORDS = Object.values(WELLNESS_MEASUREMENTS)
  .map((measurement) => measurement.words)
  .join(', ');

/** Wellness: a person's daily measurements, kept in the service one day at a time (§4.5). */
export const wellness: Kind = {
  name: 'wellness',
  title: 'Wellness',
  label: `Wellness: ${WELLNESS_WORDS}`,
  scope: 'health:write',
  page: { path: '/wellness', navLabel: 'Wellness' },
  stylesheet: 'wellness/wellness.css',
  web({ db, renderPage, clock }) {
    const days = createWellness({ db, clock });
    return { api: wellnessApi({ wellness: days }), pages: wellnessPages({ db, wellness: days, renderPage, clock }) };
  },
  account: {
    exportOf: wellnessExport,
    async eraseOf(trx, userId) {
      await trx.deleteFrom('wellness_days').where('user_id', '=', userId).execute();
    },
  },
  fieldSets: [WELLNESS_MEASUREMENT_FIELDS],
  workload: wellnessWorkload,
  sync: {
    inWords: 'wellness',
    subject: calendarDateSchema,
    daily: true,
    sender: ({ db, api }) => wellnessSender({ db, api }),
    overview: { labeller: byDate, href: rowOfPage('/wellness') },
  },
};
