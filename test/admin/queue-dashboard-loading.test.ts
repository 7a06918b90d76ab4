import type { AddressInfo } from 'node:net';
import type { Queue } from 'bullmq';
import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';

let close: () => void = () => {};
afterEach(() => {
  close();
  vi.doUnmock('@bull-board/express');
  vi.resetModules();
});

/** The dashboard for an admin who is always signed in, on a queue it never gets to read. */
async function dashboardUrl(): Promise<string> {
  const { QUEUE_DASHBOARD_PATH, queueDashboard } = await import('../../src/admin/queue-dashboard.js');
  const app = express();
  app.use((_req, res, next) => {
    res.locals.user = { email: 'ops@example.com' };
    next();
  });
  // What Bull Board's BullMQ adapter takes for a BullMQ queue; the page itself reads nothing from it.
  const queue = (name: string) => ({ name, metaValues: { version: 'bullmq:6' } }) as unknown as Queue;
  const queues = { fresh: queue('sync-fresh'), history: queue('sync-history') };
  app.use(queueDashboard({ queues, adminEmails: ['ops@example.com'], allowActions: false }));
  app.use((_error: unknown, _req: express.Request, res: express.Response, _next: express.NextFunction) => void res.sendStatus(500));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  close = () => server.close();
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}${QUEUE_DASHBOARD_PATH}/`;
}

describe('the queue dashboard, loaded at the first visit', () => {
  it('is loaded again at the next visit when the first load failed', async () => {
    let loads = 0;
    vi.doMock('@bull-board/express', async (original) => {
      loads += 1;
      if (loads === 1) throw new Error('EMFILE: too many open files');
      return original();
    });
    const url = await dashboardUrl();
    expect((await fetch(url)).status).toBe(500);
    expect((await fetch(url)).status).toBe(200);
  });
});
