import http from 'node:http';
import https from 'node:https';
import { Readable, pipeline } from 'node:stream';
import { requestTimeoutMs, type RequestTimeouts } from './request-timeout.js';

export interface OutgoingRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | StreamedBody;
  /** Shorter than the client's own bound, for a caller with a deadline of its own. */
  timeoutMs?: number;
}

/**
 * A body written as it is read, never whole in memory (a .fit file read from the store a piece at
 * a time): `chunks()` gives it from its start at each call, so that it can be sent again.
 */
export interface StreamedBody {
  contentType: string;
  contentLength: number;
  chunks(): AsyncIterable<Uint8Array>;
}

/** The parts of an answer the app reads: a fetch Response's, without its streams. */
export interface ServiceAnswer {
  status: number;
  ok: boolean;
  statusText: string;
  headers: Headers;
  text(): Promise<string>;
}

/**
 * Sends requests over node:http(s) with keep-alive and reads each answer whole. fetch cost three to
 * six times the CPU of this per request (its web streams, a Request and a Response each), and was
 * the worker's largest cost when it drains a backlog. Each exchange, the answer's body included,
 * may take the time `timeouts` give its body (request-timeout.ts); a timed-out request is never
 * sent again here.
 *
 * A kept-alive connection the service closes as idle while this client reuses it fails the request
 * before any answer (ECONNRESET, "socket hang up"): that request is sent again on a new connection,
 * as Node's documentation advises (`request.reusedSocket`). Every call to the service is safe to
 * repeat: the data endpoints upsert (§4.7 rule 1), and listing reads.
 */
export function keepAliveRequests(timeouts: RequestTimeouts): (url: URL, request: OutgoingRequest) => Promise<ServiceAnswer> {
  const secure = { client: https, agent: new https.Agent({ keepAlive: true }) };
  const plain = { client: http, agent: new http.Agent({ keepAlive: true }) };
  return async (url, { method, headers, body, timeoutMs: deadlineMs }) => {
    const encoded = encodedBody(body);
    const timeoutMs = requestTimeoutMs(encoded?.length ?? 0, timeouts);
    const { client, agent } = url.protocol === 'https:' ? secure : plain;
    // AbortSignal.timeout takes whole milliseconds only.
    const boundMs = Math.ceil(Math.min(timeoutMs, deadlineMs ?? timeoutMs));
    for (let attempt = 1; ; attempt++) {
      const sent = sendOnce(
        client,
        agent,
        url,
        { method, timeoutMs: boundMs, headers: { ...headers, ...encoded?.headers } },
        encoded?.content,
      );
      const outcome = await sent.answer.then(
        (answer) => ({ answer }),
        (error: unknown) => ({ error }),
      );
      if ('answer' in outcome) return outcome.answer;
      if (!(closedUnderUs(outcome.error) && sent.onReusedSocket() && attempt < MAX_SENDS_ON_STALE_SOCKETS)) throw outcome.error;
    }
  };
}

/** The connection was closed by the other end (not a timeout, not a refusal). */
function closedUnderUs(error: unknown): boolean {
  const code = error instanceof Error && 'code' in error ? error.code : undefined;
  return code === 'ECONNRESET' || code === 'EPIPE';
}

/** A pool may hold several connections the service closed at once; each is found out by one request. */
const MAX_SENDS_ON_STALE_SOCKETS = 4;

interface SentOnce {
  answer: Promise<ServiceAnswer>;
  /** Whether the request went out on a kept-alive connection and failed before any answer came. */
  onReusedSocket(): boolean;
}

function sendOnce(
  client: typeof http | typeof https,
  agent: http.Agent,
  url: URL,
  { method, timeoutMs, headers }: { method: string; timeoutMs: number; headers: Record<string, string> },
  content: Uint8Array | StreamedBody['chunks'] | undefined,
): SentOnce {
  let answered = false;
  let outgoing!: http.ClientRequest;
  const answer = new Promise<ServiceAnswer>((resolve, reject) => {
    outgoing = client.request(url, { method, agent, signal: AbortSignal.timeout(timeoutMs), headers }, (incoming) => {
      answered = true;
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('close', () => {
        if (!incoming.complete) reject(new Error('the answer was cut short'));
      });
      incoming.on('end', () => resolve(answerOf(incoming, Buffer.concat(chunks).toString('utf8'))));
    });
    outgoing.on('error', reject);
    if (typeof content === 'function') {
      // Not in object mode: the stream reads ahead by bytes (16 KiB), not by a number of pieces.
      pipeline(Readable.from(content(), { objectMode: false }), outgoing, (error) => error && reject(error));
    } else {
      outgoing.end(content);
    }
  });
  return { answer, onReusedSocket: () => outgoing.reusedSocket && !answered };
}

function answerOf(incoming: http.IncomingMessage, text: string): ServiceAnswer {
  const status = incoming.statusCode ?? 0;
  const headers = new Headers();
  for (let index = 0; index < incoming.rawHeaders.length; index += 2)
    headers.append(incoming.rawHeaders[index]!, incoming.rawHeaders[index + 1]!);
  return {
    status,
    ok: status >= 200 && status < 300,
    statusText: incoming.statusMessage ?? '',
    headers,
    text: () => Promise.resolve(text),
  };
}

/** A string is sent whole; a streamed body as it is read, its length announced. */
function encodedBody(body: OutgoingRequest['body']) {
  if (body === undefined) return undefined;
  if (typeof body === 'string') {
    const bytes = Buffer.from(body);
    return { content: bytes, length: bytes.byteLength, headers: { 'content-length': String(bytes.byteLength) } };
  }
  const headers = { 'content-type': body.contentType, 'content-length': String(body.contentLength) };
  return { content: () => body.chunks(), length: body.contentLength, headers };
}
