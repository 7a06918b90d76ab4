import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { activityRetentionSettings, activityUploadSettings } from '../../src/activities/activities.settings.js';
import { loadConfig, loadWebConfig, loadWorkerConfig } from '../../src/config.js';
import { expectRefusedSaying, itRefusesEachWrongValue, VALID_ENV } from '../helpers/settings.js';

/** A wrong value for every setting of the activities. */
const WRONG_VALUES: Record<string, string> = {
  ACTIVITY_MAX_BYTES: '25MB',
  ACTIVITY_RETENTION: 'delete',
  ACTIVITY_MAX_CONCURRENT_UPLOADS: '0',
  ACTIVITY_UPLOAD_TIMEOUT_S: 'slow',
  ACTIVITY_CHECK_S_PER_MIB: '61',
  ACTIVITY_UPLOAD_FOLDER: 'uploads',
  ACTIVITY_UPLOADS_PER_ADDRESS: '0',
  ACTIVITY_UPLOAD_MIN_BYTES_PER_S: '1023',
};

const GROUPS = [activityUploadSettings, activityRetentionSettings];

/** Both groups' parts, as one object. */
function activitySettingsOf(env: Record<string, string>) {
  const { kindSettings } = loadConfig(env, GROUPS);
  return { ...kindSettings.of(activityUploadSettings), ...kindSettings.of(activityRetentionSettings) };
}

describe('the settings of the activities', () => {
  itRefusesEachWrongValue(
    [...Object.keys(activityUploadSettings.settings), ...Object.keys(activityRetentionSettings.settings)],
    WRONG_VALUES,
  );

  it.each([
    ['ACTIVITY_MAX_BYTES', '25MB', 'a number of bytes'],
    ['ACTIVITY_MAX_BYTES', '0', 'a number of bytes'],
    ['ACTIVITY_MAX_BYTES', '1e12', 'a number of bytes up to 104857600'],
    ['ACTIVITY_RETENTION', 'delete', 'keep or prune-after-upload'],
  ])('refuse %s=%j saying what they expect', expectRefusedSaying);

  it('take .fit files up to 25 MiB, sixteen files in all at once in the temporary folder, two per address, for 120 s each at 16 KiB/s at least, checks of 2 s per MiB, and keep their bytes by default', () => {
    expect(activitySettingsOf(VALID_ENV)).toMatchObject({
      activities: {
        maxBytes: 26_214_400,
        maxConcurrentUploads: 16,
        uploadFolder: tmpdir(),
        uploadsPerAddress: 2,
        uploadTimeoutMs: 120_000,
        uploadMinBytesPerS: 16_384,
        checkMsPerMib: 2000,
      },
      activityRetention: 'keep',
    });
    const changed = {
      ACTIVITY_MAX_BYTES: '1048576',
      ACTIVITY_MAX_CONCURRENT_UPLOADS: '2',
      ACTIVITY_UPLOAD_FOLDER: '/var/tmp/uploads',
      ACTIVITY_UPLOAD_TIMEOUT_S: '30',
      ACTIVITY_CHECK_S_PER_MIB: '5',
      ACTIVITY_UPLOADS_PER_ADDRESS: '1',
      ACTIVITY_UPLOAD_MIN_BYTES_PER_S: '1024',
      ACTIVITY_RETENTION: 'prune-after-upload',
    };
    expect(activitySettingsOf({ ...VALID_ENV, ...changed })).toMatchObject({
      activities: {
        maxBytes: 1_048_576,
        maxConcurrentUploads: 2,
        uploadFolder: '/var/tmp/uploads',
        uploadsPerAddress: 1,
        uploadTimeoutMs: 30_000,
        uploadMinBytesPerS: 1024,
        checkMsPerMib: 5000,
      },
      activityRetention: 'prune-after-upload',
    });
  });

  it("give the uploads' settings to the web processes and the retention to the workers", () => {
    const web = loadWebConfig({ ...VALID_ENV, ACTIVITY_RETENTION: 'delete' }, GROUPS).kindSettings;
    expect(web.of(activityUploadSettings).activities.maxBytes).toBe(26_214_400);
    expect(() => web.of(activityRetentionSettings)).toThrow('not given');
    const worker = loadWorkerConfig({ ...VALID_ENV, ACTIVITY_MAX_BYTES: '25MB' }, GROUPS).kindSettings;
    expect(worker.of(activityRetentionSettings).activityRetention).toBe('keep');
    expect(() => worker.of(activityUploadSettings)).toThrow('not given');
  });
});
