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
    json: JSON.parse(Buffer.concat(chunks).toString('utf8')),
    sentWhenAnswered: answer?.sentWhenAnswered ?? sent,
  };
}
