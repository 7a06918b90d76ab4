import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

/** One data request as the proxy saw it, in ms of this process's clock. */
export interface ProxiedRequest {
  method: string;
  path: string;
  arrivedAt: number;
  /** When the service's answer was in; undefined while it is not. */
  answeredAt?: number;
}

export interface RecordingProxy {
  url: string;
  /** The data requests (not the token endpoint's), in the order they arrived. */
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

/** Hop-by-hop headers, and those fetch sets itself. */
const NOT_FORWARDED = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'content-encoding']);

/**
 * A slow service in front of `target` (the sandbox): every data request is held `holdMs` before it is
 * passed on, and the proxy records when it arrived and when its answer was in, so that a test can
 * tell whether two were ever at the service at once. A request whose client left meanwhile (a
 * killed worker) still goes on, as one already on the wire would.
 */
export async function startRecordingProxy(target: string, holdMs: number): Promise<RecordingProxy> {
  const requests: ProxiedRequest[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const body = await bodyOf(req);
      const path = req.url ?? '/';
      const recorded = path.startsWith('/api/') && !path.startsWith('/api/oauth/');
      const request: ProxiedRequest = { method: req.method ?? 'GET', path, arrivedAt: performance.now() };
      if (recorded) {
        requests.push(request);
        await sleep(holdMs);
      }
      const answer = await fetch(`${target}${path}`, { method: req.method, headers: forwardedHeaders(req), body });
      const answerBody = Buffer.from(await answer.arrayBuffer());
      request.answeredAt = performance.now();
      const headers = [...answer.headers].filter(([name]) => !NOT_FORWARDED.has(name));
      res.writeHead(answer.status, Object.fromEntries(headers)).end(answerBody);
    })().catch(() => res.destroy());
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** Pairs of requests that were at the service at the same time (one still unanswered overlaps every later one). */
export function overlapping(requests: ProxiedRequest[]): Array<[ProxiedRequest, ProxiedRequest]> {
  const sorted = [...requests].sort((a, b) => a.arrivedAt - b.arrivedAt);
  return sorted.flatMap((request, index) =>
    sorted
      .slice(index + 1)
      .filter((later) => later.arrivedAt < (request.answeredAt ?? Number.POSITIVE_INFINITY))
      .map((later): [ProxiedRequest, ProxiedRequest] => [request, later]),
  );
}

async function bodyOf(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : Buffer.concat(chunks);
}

function forwardedHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  return headers;
}
