import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fitFile, fitFileWithSession, fitFileWithUndecodableRecords, withByte } from '../helpers/fit-files.js';
import {
  changeSettings,
  getWithToken,
  obtainTokens,
  postJson,
  startSandbox,
  uploadFit,
  type RunningSandbox,
  type UploadParts,
} from './helpers.js';

let sandbox: RunningSandbox;
let accessToken: string;
beforeEach(async () => {
  sandbox = await startSandbox();
  accessToken = (await obtainTokens(sandbox, 'workout:read workout:write')).access_token;
});
afterEach(() => sandbox.stop());

const upload = (parts: UploadParts) => uploadFit(sandbox, accessToken, parts);

async function listWorkouts(): Promise<unknown> {
  return (await getWithToken(sandbox, '/api/workouts', accessToken)).json();
}

describe('POST /api/workouts/upload-fit', () => {
  it('stores a valid file and lists it', async () => {
    const file = fitFile();
    const response = await upload({ file, name: 'Morning ride', metadata: '{"localId":"42"}' });
    expect(response.status).toBe(201);
    const sha256 = createHash('sha256').update(file).digest('hex');
    const workout = {
      id: expect.any(String),
      name: 'Morning ride',
      metadata: { localId: '42' },
      sha256,
      bytes: file.length,
      // A file without a session message: its records give the start and the elapsed time.
      start_time: '2026-03-01T07:00:00.000Z',
      sport: null,
      elapsed_time: 4,
      distance: null,
      createdAt: '2026-03-01T08:00:00.000Z',
      updatedAt: '2026-03-01T08:00:00.000Z',
    };
    expect(await response.json()).toEqual(workout);
    expect(await listWorkouts()).toEqual({ workouts: [workout] });
  });

  it('updates name and metadata when the same file comes again, with no second workout', async () => {
    const file = fitFile();
    await upload({ file, name: 'Ride', metadata: '{"v":1}' });
    sandbox.clock.advanceSeconds(5);
    const again = await upload({ file, name: 'Ride, renamed', metadata: '{"v":2}' });
    expect(again.status).toBe(200);
    expect(await listWorkouts()).toEqual({
      workouts: [
        expect.objectContaining({
          name: 'Ride, renamed',
          metadata: { v: 2 },
          createdAt: '2026-03-01T08:00:00.000Z',
          updatedAt: '2026-03-01T08:00:05.000Z',
        }),
      ],
    });
    expect([...(sandbox.runtime.state.athletes.get('Ada')?.workouts.values() ?? [])]).toMatchObject([{ writes: 2 }]);
  });

  it('keeps different files as different workouts', async () => {
    await upload({ file: fitFile(1), name: 'One' });
    await upload({ file: fitFile(2), name: 'Two' });
    expect(await listWorkouts()).toMatchObject({ workouts: [{ name: 'One', metadata: null }, { name: 'Two' }] });
  });
});

describe('POST /api/workouts/upload-fit refuses what is not one valid .fit upload', () => {
  const valid = fitFile();
  const headerSize = valid[0] ?? 0;
  const dataSize = valid.length - headerSize - 2;

  it.each<[string, UploadParts, string, string]>([
    ['no file', { name: 'Ride' }, 'file', 'required'],
    ['a file that is not FIT', { file: new TextEncoder().encode('hello, this is not a FIT file'), name: 'Ride' }, 'file', 'header size'],
    ['an empty file', { file: new Uint8Array(), name: 'Ride' }, 'file', 'too short'],
    ['a wrong signature', { file: withByte(valid, 9, 0x41), name: 'Ride' }, 'file', 'signature'],
    ['a truncated file', { file: valid.slice(0, valid.length - 10), name: 'Ride' }, 'file', 'truncated'],
    ['bytes after the file', { file: Uint8Array.from([...valid, 0, 0]), name: 'Ride' }, 'file', 'truncated or padded'],
    [
      'a corrupted data byte',
      { file: withByte(valid, headerSize + dataSize - 1, 0xff ^ (valid[headerSize + dataSize - 1] ?? 0)), name: 'Ride' },
      'file',
      'file CRC',
    ],
    ['a corrupted header CRC', { file: withByte(valid, 12, 0xff ^ (valid[12] ?? 0)), name: 'Ride' }, 'file', 'header CRC'],
    ['no name', { file: valid }, 'name', 'expected'],
    ['a blank name', { file: valid, name: ' ' }, 'name', 'blank'],
    ['metadata that is not JSON', { file: valid, name: 'Ride', metadata: 'source=watch' }, 'metadata', 'JSON-encoded object'],
    ['metadata that is a JSON list', { file: valid, name: 'Ride', metadata: '[1,2]' }, 'metadata', 'JSON-encoded object'],
    ['metadata that is a JSON string', { file: valid, name: 'Ride', metadata: '"watch"' }, 'metadata', 'JSON-encoded object'],
  ])('refuses %s with 400 naming the field', async (_case, parts, field, problem) => {
    const response = await upload(parts);
    expect(response.status).toBe(400);
    const body: unknown = await response.json();
    expect(body).toMatchObject({ error: 'invalid_request', fields: [field] });
    expect(body).toMatchObject({ error_description: expect.stringContaining(problem) });
    expect(sandbox.runtime.state.athletes.get('Ada')?.workouts.size).toBe(0);
  });

  it('refuses a file whose CRC is right but whose records do not decode', async () => {
    const response = await upload({ file: fitFileWithUndecodableRecords(), name: 'Ride' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ fields: ['file'], error_description: expect.stringContaining('decoded') });
  });

  it('refuses a file in another part', async () => {
    const form = new FormData();
    form.append('upload', new Blob([valid]), 'activity.fit');
    form.append('name', 'Ride');
    const response = await fetch(new URL('/api/workouts/upload-fit', sandbox.baseUrl), {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}` },
      body: form,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ fields: ['upload'] });
  });

  it('refuses a file larger than maxFitBytes with 413', async () => {
    await sandbox.stop();
    sandbox = await startSandbox({ maxFitBytes: valid.length - 1 });
    accessToken = (await obtainTokens(sandbox, 'workout:write')).access_token;
    const response = await upload({ file: valid, name: 'Ride' });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ fields: ['file'] });
  });

  it('refuses a JSON body with 415', async () => {
    const response = await postJson(sandbox, '/api/workouts/upload-fit', { name: 'Ride' }, accessToken);
    expect(response.status).toBe(415);
  });
});

describe('POST /api/workouts/upload-fit with strictFields', () => {
  it('refuses a form part the document does not show, naming it; the parts it shows pass', async () => {
    await changeSettings(sandbox, { strictFields: true });
    const form = new FormData();
    form.append('file', new Blob([fitFile()]), 'activity.fit');
    form.append('name', 'Ride');
    form.append('sport', 'cycling');
    const response = await fetch(new URL('/api/workouts/upload-fit', sandbox.baseUrl), {
      method: 'POST',
      headers: { Authorization: `Bearer ${accessToken}` },
      body: form,
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ fields: ['sport'] });
    expect((await upload({ file: fitFile(), name: 'Ride', metadata: '{}' })).status).toBe(201);
  });
});

describe('GET /api/workouts summarises each activity', () => {
  it('from its session message when the file has one', async () => {
    await upload({ file: fitFileWithSession(), name: 'Long ride' });
    expect(await listWorkouts()).toEqual({
      workouts: [
        expect.objectContaining({
          name: 'Long ride',
          start_time: '2026-03-01T06:30:00.000Z',
          sport: 'cycling',
          elapsed_time: 5400,
          distance: 45_000,
        }),
      ],
    });
  });
});

describe('GET /api/workouts answers in the shape the workoutsListing setting names', () => {
  beforeEach(async () => {
    await upload({ file: fitFile(), name: 'Morning ride' });
  });

  it('lists the stored workouts under "workouts" by default', async () => {
    expect(await listWorkouts()).toEqual({ workouts: [expect.objectContaining({ name: 'Morning ride' })] });
  });

  it('answers an object holding no list', async () => {
    expect((await changeSettings(sandbox, { workoutsListing: 'object-without-list' })).status).toBe(200);
    expect(await listWorkouts()).toEqual({ count: 1, next: null });
  });

  it('answers an array of odd entries', async () => {
    await changeSettings(sandbox, { workoutsListing: 'odd-entries' });
    const listing = await listWorkouts();
    expect(listing).toEqual(expect.arrayContaining(['Evening run', null, expect.objectContaining({ name: 42 })]));
  });

  it('answers a body that is not JSON, labelled as JSON', async () => {
    await changeSettings(sandbox, { workoutsListing: 'not-json' });
    const response = await getWithToken(sandbox, '/api/workouts', accessToken);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    await expect(response.json()).rejects.toThrow(SyntaxError);
  });
});

describe('a withdrawn scope', () => {
  it('is refused with 403 insufficient_scope although the token holds it, in the body and the challenge', async () => {
    await changeSettings(sandbox, { withdrawnScopes: ['workout:read'] });
    const response = await getWithToken(sandbox, '/api/workouts', accessToken);
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(await response.json()).toMatchObject({ error: 'insufficient_scope' });
    expect((await upload({ file: fitFile(), name: 'Ride' })).status).toBe(201);
  });
});
