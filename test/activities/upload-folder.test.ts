import { readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareUploadFolder } from '../../src/activities/upload-folder.js';
import { temporaryFolder } from '../helpers/temporary-folders.js';

describe('the upload folder at start', () => {
  it('is made if missing, and rid of the uploads a process left an hour or more ago, keeping newer ones and other files', async () => {
    const parent = temporaryFolder('uploads-parent-');
    const uploads = join(parent, 'uploads');
    await prepareUploadFolder(uploads);
    const hourAgo = new Date(Date.now() - 61 * 60 * 1000);
    for (const name of ['athlete-sync-upload-old.fit.part', 'athlete-sync-upload-new.fit.part', 'notes.txt']) {
      writeFileSync(join(uploads, name), 'x');
    }
    for (const name of ['athlete-sync-upload-old.fit.part', 'notes.txt']) utimesSync(join(uploads, name), hourAgo, hourAgo);
    await prepareUploadFolder(uploads);
    expect(readdirSync(uploads).sort()).toEqual(['athlete-sync-upload-new.fit.part', 'notes.txt']);
    expect(((await stat(uploads)).mode & 0o777).toString(8)).toBe('700');
  });
});
