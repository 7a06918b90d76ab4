import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { keepAliveRequests } from '../../src/provider/keep-alive-request.js';
import { eventually } from '../helpers/wait.js';

let server: Server | undefined;

async function serve(listener: RequestListener): Promise<{ url: URL; sockets: () => number }> {
  let sockets = 0;
  server = createServer(listener).on('connection', () => sockets++);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/nutrition`), sockets: () => sockets };
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
});

describe('requests to the service', () => {
  it('reuses one connection for requests one after another, and reads each answer whole', async () => {
    const { url, sockets } = await serve((req, res) =>
      req.resume().on('end', () => res.writeHead(429, { 'retry-after': '3' }).end('{"error":"slow_down"}')),
    );
    const request = keepAliveRequests({ baseS: 5, minBytesPerS: 1024 });
    for (let index = 0; index < 3; index++) {
      const answer = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect([answer.status, answer.ok, answer.headers.get('retry-after'), await answer.text()]).toEqual([
        429,
        false,
        '3',
        '{"error":"slow_down"}',
      ]);
    }
    expect(sockets()).toBe(1);
  });

  it('sends a request again on a new connection when the service closed the kept-alive one it went out on', async () => {
    const requestsOnSocket = new WeakMap<object, number>();
    const { url, sockets } = await serve((req, res) => {
      const count = (requestsOnSocket.get(req.socket) ?? 0) + 1;
      requestsOnSocket.set(req.socket, count);
      // An idle connection closed by the service just as the client reuses it.
      if (count > 1) return req.socket.destroy();
      req.resume().on('end', () => res.end('{}'));
    });
    const request = keepAliveRequests({ baseS: 5, minBytesPerS: 1024 });
    for (let index = 0; index < 3; index++) expect((await request(url, { method: 'POST', headers: {}, body: '{}' })).status).toBe(200);
    expect(sockets()).toBe(3);
  });

  it('sends a streamed body again, whole, from its first byte, when the kept-alive connection it went out on was closed', async () => {
    const requestsOnSocket = new WeakMap<object, number>();
    const received: Buffer[] = [];
    const { url, sockets } = await serve((req, res) => {
      const count = (requestsOnSocket.get(req.socket) ?? 0) + 1;
      requestsOnSocket.set(req.socket, count);
      if (count > 1) return req.socket.destroy();
      const chunks: Buffer[] = [];
      req
        .on('data', (chunk: Buffer) => chunks.push(chunk))
        .on('end', () => {
          received.push(Buffer.concat(chunks));
          res.end('{}');
        });
    });
    const request = keepAliveRequests({ baseS: 5, minBytesPerS: 1024 });
    const pieces = [Buffer.from('first piece, '), Buffer.from('second piece')];
    const body = {
      contentType: 'text/plain',
      contentLength: 25,
      chunks: async function* () {
        yield* pieces;
      },
    };
    for (let index = 0; index < 2; index++) expect((await request(url, { method: 'POST', headers: {}, body })).status).toBe(200);
    expect(received.map(String)).toEqual(['first piece, second piece', 'first piece, second piece']);
    expect(sockets()).toBe(2);
  });

  it('fails a request whose streamed body cannot be read to its end, the service never getting the whole body', async () => {
    let firstBytesArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (firstBytesArrived = resolve));
    const bodies: Array<{ received: number; complete: boolean }> = [];
    const { url } = await serve((req) => {
      let received = 0;
      req.on('data', (chunk: Buffer) => ((received += chunk.length), firstBytesArrived()));
      req.on('close', () => bodies.push({ received, complete: req.complete }));
    });
    const body = {
      contentType: 'application/octet-stream',
      contentLength: 3 * 1024,
      chunks: async function* () {
        yield Buffer.alloc(1024);
        await arrived;
        throw new Error('the stored file was deleted while it was read');
      },
    };
    await expect(keepAliveRequests({ baseS: 5, minBytesPerS: 1024 })(url, { method: 'POST', headers: {}, body })).rejects.toThrow(
      'deleted while it was read',
    );
    expect(await eventually('the service to see the request end', async () => bodies[0])).toEqual({ received: 1024, complete: false });
  });

  it('does not send again a request whose answer did not come in time, kept-alive connection or not', async () => {
    let requests = 0;
    const { url } = await serve((req, res) => {
      // The first is answered, so that the second goes out on the kept-alive connection; it is not.
      if (++requests === 1) req.resume().on('end', () => res.end('{}'));
    });
    const request = keepAliveRequests({ baseS: 0.3, minBytesPerS: 1024 });
    expect((await request(url, { method: 'POST', headers: {}, body: '{}' })).status).toBe(200);
    await expect(request(url, { method: 'POST', headers: {}, body: '{}' })).rejects.toThrow();
    expect(requests).toBe(2);
  });

  it('gives a streamed body its time at the slowest rate beyond the base, where a small one is given up at the base', async () => {
    const { url } = await serve((req, res) => req.resume().on('end', () => setTimeout(() => res.end('{}'), 1000)));
    const request = keepAliveRequests({ baseS: 0.3, minBytesPerS: 1024 });
    const twentyKiB = Buffer.alloc(20 * 1024, 1);
    const body = {
      contentType: 'application/octet-stream',
      contentLength: twentyKiB.length,
      chunks: async function* () {
        yield twentyKiB;
      },
    };
    expect((await request(url, { method: 'POST', headers: {}, body })).status).toBe(200);
    await expect(request(url, { method: 'POST', headers: {}, body: '{}' })).rejects.toThrow();
  });

  it('gives up on an answer whose body stops coming within the timeout', async () => {
    const { url } = await serve((_req, res) => res.writeHead(200, { 'content-length': '100' }).write('{"partial":'));
    await expect(keepAliveRequests({ baseS: 0.2, minBytesPerS: 1024 })(url, { method: 'GET', headers: {} })).rejects.toThrow();
  });
});
