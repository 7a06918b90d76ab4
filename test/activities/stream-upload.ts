import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';

export const BOUNDARY = 'test-boundary-7f3a';

/** The opening of a multipart body whose one part, `file`, runs on with whatever is written next. */
const FILE_PART_OPENING = Buffer.from(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.fit"\r\nContent-Type: application/octet-stream\r\n\r\n`,
);
const CLOSING = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);

export interface StreamedUpload {
  status: number;
  retryAfter: string | undefined;
  json: unknown;
  /** Bytes of the body the client had handed to the socket when the answer's head arrived. */
  sentWhenAnswered: number;
}

/**
 * Streams a multipart body of one file of `fileBytes` bytes to `url` with node:http, chunk by chunk
 * as the socket takes them, and stops sending once the answer has come. With `declare`, the headers
 * say the body's true length; without, it is sent chunked. `headers` are added (a session cookie, say).
 */
export async function streamUpload(
  url: string,
  fileBytes: number,
  { declare, headers = {} }: { declare: boolean; headers?: Record<string, string> },
): Promise<StreamedUpload> {
  const bodyLength = FILE_PART_OPENING.length + fileBytes + CLOSING.length;
  const req = request(url, {
    method: 'POST',
    headers: {
      'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
      ...(declare ? { 'Content-Length': String(bodyLength) } : {}),
      ...headers,
    },
  });
  // Once the server has answered and closed, writes fail with EPIPE or ECONNRESET: expected here.
  req.on('error', () => {});
  let sent = 0;
  let answer: { response: IncomingMessage; sentWhenAnswered: number } | undefined;
  const answered = new Promise<IncomingMessage>((resolve) => {
    req.on('response', (response: IncomingMessage) => {
      answer = { response, sentWhenAnswered: sent };
      resolve(response);
    });
  });
  const write = async (chunk: Buffer) => {
    sent += chunk.length;
    if (!req.write(chunk)) await Promise.race([once(req, 'drain'), answered]);
  };
  await write(FILE_PART_OPENING);
  const chunk = Buffer.alloc(64 * 1024, 0x2a);
  for (let remaining = fileBytes; remaining > 0 && answer === undefined && !req.destroyed; remaining -= chunk.length) {
    await write(remaining >= chunk.length ? chunk : chunk.subarray(0, remaining));
  }
  if (answer === undefined && !req.destroyed) {
    await write(CLOSING);
    req.end();
  }
  const response = await answered;
  const chunks: Buffer[] = [];
  for await (const piece of response) chunks.push(piece as Buffer);
  req.destroy();
  return {
    status: response.statusCode ?? 0,
    retryAfter: response.headers['retry-after'],
    json: JSON.parse(Buffer.concat(chunks).toString('utf8')),
    sentWhenAnswered: answer?.sentWhenAnswered ?? sent,
  };
}

export interface Dribble {
  /** The answer, once it comes. */
  answer: Promise<{ status: number; json: unknown }>;
  /** Ends the request from the client's side. */
  stop(): void;
}

/**
 * Opens an upload to `url` of a file of `fileBytes` (8 MiB unless said) and sends its body at about
 * `bytesPerS`, a tenth each 100 ms, to its end: a client holding an upload open. From
 * `localAddress` (127.0.0.2, …) the app sees another client address.
 */
export function dribbleUpload(
  url: string,
  {
    bytesPerS,
    fileBytes = 1024 * 1024,
    headers = {},
    localAddress,
  }: { bytesPerS: number; fileBytes?: number; headers?: Record<string, string>; localAddress?: string },
): Dribble {
  const req = request(url, {
    method: 'POST',
    localAddress,
    headers: {
      'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
      'Content-Length': String(FILE_PART_OPENING.length + fileBytes + CLOSING.length),
      ...headers,
    },
  });
  // Once the server has answered and closed, writes fail with EPIPE or ECONNRESET: expected here.
  req.on('error', () => {});
  req.write(FILE_PART_OPENING);
  const piece = Buffer.alloc(Math.max(1, Math.round(bytesPerS / 10)), 0x2a);
  let sent = 0;
  const dribbling = setInterval(() => {
    const next = piece.subarray(0, fileBytes - sent);
    sent += next.length;
    req.write(next);
    if (sent < fileBytes) return;
    clearInterval(dribbling);
    req.end(CLOSING);
  }, 100);
  const answer = new Promise<{ status: number; json: unknown }>((resolve, reject) => {
    req.on('response', (response: IncomingMessage) => {
      clearInterval(dribbling);
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      response.on('error', reject);
    });
  });
  answer.catch(() => {});
  return {
    answer,
    stop: () => {
      clearInterval(dribbling);
      req.destroy();
    },
  };
}
