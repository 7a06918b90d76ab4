import type { Kind } from '../kinds/kind.js';
import { rowOfPage } from '../kinds/entry-presentations.js';
import { activitiesApi, activityUploadApi } from './activities.api.js';
import { activitiesPages, activityUploadPage } from './activities.pages.js';
import { createActivities, newestActivityViews } from './activities.js';
import { activitiesExport } from './activity.export.js';
import { createActivityFileLock } from './activity-file-lock.js';
import { createDatabaseActivityFileStore } from './activity-file-store.js';
import { activityNames } from './activity.repository.js';
import { activityRetentionSettings, activityUploadSettings } from './activities.settings.js';
import { activitySender } from './activity-sender.js';
import { activityIdSchema } from './activity-subject.js';
import { createFitFileChecker } from './fit-file-checker.js';
import { sampleFileHint } from './sample-file.js';
import { createUploadReception } from './upload-slots.js';

/** Activities: .fit files a person uploads, each sent to the service as it was received (§4.4). */
export const activities: Kind = {
  name: 'activities',
  title: 'Activities',
  label: 'Activities: upload .fit files',
  scope: 'workout:write',
  page: { path: '/activities', navLabel: 'Activities' },
  settings: [activityUploadSettings, activityRetentionSettings],
  web({ config, db, redis, renderPage, forms, clock }) {
    const settings = config.kindSettings.of(activityUploadSettings).activities;
    const uploaded = createActivities({
      db,
      files: createDatabaseActivityFileStore(db),
      lockFile: createActivityFileLock(redis, config.redis.prefix),
      checkFile: createFitFileChecker({ msPerMib: settings.checkMsPerMib }),
      clock,
    });
    const uploads = createUploadReception({
      maxBytes: settings.maxBytes,
      maxConcurrent: settings.maxConcurrentUploads,
      perAddress: settings.uploadsPerAddress,
      timeoutMs: settings.uploadTimeoutMs,
      minBytesPerS: settings.uploadMinBytesPerS,
      folder: settings.uploadFolder,
    });
    return {
      // Uploads are multipart (§2.2): their routes parse them, and the form's route checks its token itself.
      ownBodies: activityUploadApi({ activities: uploaded, uploads }).use(
        activityUploadPage({ db, activities: uploaded, renderPage, clock, uploads, forms }),
      ),
      api: activitiesApi({ activities: uploaded }),
      pages: activitiesPages({ db, activities: uploaded, renderPage, clock }),
    };
  },
  account: {
    exportOf: activitiesExport,
    async eraseOf(trx, userId) {
      await createDatabaseActivityFileStore(trx).deleteAllOf(trx, userId);
      await trx.deleteFrom('activities').where('user_id', '=', userId).execute();
    },
  },
  sync: {
    inWords: 'activities',
    subject: activityIdSchema,
    daily: false,
    sender: ({ config, db, api }) =>
      activitySender({
        db,
        api,
        activityFiles: {
          store: createDatabaseActivityFileStore(db),
          retention: config.kindSettings.of(activityRetentionSettings).activityRetention,
        },
      }),
    status: {
      field: 'activities',
      entries: async (db, userId) =>
        (await newestActivityViews(db, userId)).map(({ id, name, sha256, sync }) => ({ id, name, sha256, ...sync })),
    },
    overview: {
      async labeller(db, userId, entries) {
        // A subject no activity can have (a hand edit) is shown as it is, never looked up.
        const ids = entries.map((entry) => entry.subject).filter((subject) => activityIdSchema.safeParse(subject).success);
        const names = await activityNames(db, userId, ids.map(Number));
        return (entry) => names.get(Number(entry.subject)) ?? `Activity ${entry.subject}`;
      },
      href: rowOfPage('/activities'),
    },
  },
  demoHint: sampleFileHint,
};
