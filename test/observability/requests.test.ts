import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { observeRequests } from '../../src/observability/requests.js';
import type { Metrics } from '../../src/observability/metrics.js';
import { eventually } from '../helpers/wait.js';

let close: () => void = () => {};
afterEach(() => close());

/**
 * An app whose one route answers 201 after five seconds, with the lines it logs, the requests it counts
 * and a promise of the route's first request.
 */
async function slowApp() {
  const lines: Record<string, unknown>[] = [];
  const counted: { status: number }[] = [];
  const logger = createLogger('info', 'web', { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  const metrics = { requestServed: (request: { status: number }) => counted.push(request) } as unknown as Metrics;
  let receive = () => {};
  const received = new Promise<void>((resolve) => (receive = resolve));
  const app = express();
  app.use(observeRequests({ logger, metrics }));
  app.get('/slow', (_req, res) => {
    receive();
    setTimeout(() => res.status(201).end(), 5000).unref();
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  close = () => server.close();
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`, lines, counted, received };
}

describe('a request whose client leaves before the answer', () => {
  it('is logged and counted with 499, not the 200 that was never sent', async () => {
    const { url, lines, counted, received } = await slowApp();
    // The client leaves once the app has the request: on a busy machine a fixed delay can end first.
    const leave = new AbortController();
    const request = fetch(url, { signal: leave.signal });
    await received;
    leave.abort();
    await expect(request).rejects.toThrow();
    const answered = await eventually('the request line', async () => lines.find((line) => line.msg === 'request answered'));
    expect(answered).toMatchObject({ route: '/slow', status: 499 });
    expect(counted).toEqual([expect.objectContaining({ status: 499 })]);
  });
});
