import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORED_PIECE_BYTES, type ActivityFileStore } from '../../src/activities/activity-file-store.js';
import { activitySender } from '../../src/activities/activity-sender.js';
import { createPrometheusMetrics } from '../../src/observability/metrics.js';
import { createServiceApi } from '../../src/provider/api.js';
import { sendEntry } from '../../src/sync/send-entry.js';
import { fitFile } from '../helpers/fit-files.js';
import { connectedUser } from '../helpers/flows.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { eventually } from '../helpers/wait.js';
import { listActivities, uploadActivity } from './helpers.js';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack({ sandbox: { autoApprove: 'Ana' } });
});
afterAll(async () => {
  await stack.close();
});

describe('an activity whose stored bytes are lost', () => {
  it('is marked failed, asking for the file again, and uploading the same file again sends it', async () => {
    const { client, userId } = await connectedUser(stack);
    const file = fitFile(301);
    const activity = await uploadActivity(client, file, { name: 'Ride' });
    const entry = { userId, kind: 'activities' as const, subject: String(activity.id) };
    await stack.db.deleteFrom('activity_files').where('key', 'like', `${userId}/%`).execute();

    expect(await sendEntry(stack.sendDependencies(), entry)).toBe('failed');
    expect(await listActivities(client)).toMatchObject([{ sync: { status: 'failed', error: expect.stringMatching(/upload it again/) } }]);

    await uploadActivity(client, file, {}, 200);
    expect(await sendEntry(stack.sendDependencies(), entry)).toBe('synced');
    const workouts = Object.values((await stack.sandboxState()).athletes.Ana!.workouts);
    expect(workouts).toMatchObject([{ payload: { name: 'Ride' }, writes: 1 }]);
  });
});

describe('an activity file on its way out', () => {
  const FILE_BYTES = 64 * 1024 * 1024;

  /** A store whose every file is FILE_BYTES of fresh pieces, made as they are read and counted: nothing of it is in memory until read. */
  function countingStore() {
    let piecesRead = 0;
    const store: ActivityFileStore = {
      put: async () => {},
      delete: async () => {},
      deleteAllOf: async () => {},
      open: async () => ({
        size: FILE_BYTES,
        async *pieces() {
          for (let offset = 0; offset < FILE_BYTES; offset += STORED_PIECE_BYTES) {
            piecesRead++;
            yield Buffer.alloc(STORED_PIECE_BYTES, piecesRead % 256);
          }
        },
      }),
    };
    return { store, bytesRead: () => piecesRead * STORED_PIECE_BYTES };
  }

  /** A service that takes a request's headers and reads none of its body until `readAll`. */
  async function serviceNotReading() {
    let waiting: { req: IncomingMessage; res: ServerResponse } | undefined;
    const server = createServer((req, res) => (waiting = { req, res }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      /** Reads the body to its end, answers 201, and says how many bytes the body had and announced. */
      async readAll(): Promise<{ received: number; announced: number }> {
        const { req, res } = waiting!;
        let received = 0;
        for await (const chunk of req) received += (chunk as Buffer).length;
        res.writeHead(201).end();
        return { received, announced: Number(req.headers['content-length']) };
      },
      close: () => new Promise((resolve) => server.close(resolve)),
    };
  }

  it('is read from the store only as fast as the service takes it: a 64 MiB file waits in the store, not in the worker', async () => {
    const { client, userId } = await connectedUser(stack);
    const activity = await uploadActivity(client, fitFile(302), { name: 'Ride' });
    const service = await serviceNotReading();
    const { store, bytesRead } = countingStore();
    const api = createServiceApi(
      { baseUrl: service.url, timeoutS: 600, uploadMinBytesPerS: 1024 * 1024 },
      {
        accessTokens: { accessTokenFor: async () => 'token', replaceRejected: async () => 'token', keepAlive: async () => {} },
        clock: () => new Date(),
        metrics: createPrometheusMetrics(),
      },
    );
    const sender = activitySender({ db: stack.db, api, activityFiles: { store, retention: 'keep' } });

    const sending = sender.send({ userId, kind: 'activities', subject: String(activity.id) });
    // Once the connection's buffers are full, reading stops: the same count at five looks in a row.
    const looks: number[] = [];
    const whileStalled = await eventually('the reading to stop', async () => {
      looks.push(bytesRead());
      const last = looks.slice(-5);
      return last.length === 5 && last[0]! > 0 && last.every((read) => read === last[0]) ? last[0] : undefined;
    });
    expect(whileStalled).toBeLessThan(FILE_BYTES / 4);

    const { received, announced } = await service.readAll();
    expect(await sending).toBe('sent');
    expect(bytesRead()).toBe(FILE_BYTES);
    expect(received).toBe(announced);
    expect(received).toBeGreaterThan(FILE_BYTES);
    await service.close();
  }, 60_000);
});
