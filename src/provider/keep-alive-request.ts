import http from 'node:http';
import https from 'node:https';

export interface OutgoingRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | FormData;
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
 * the worker's largest cost when it drains a backlog (issue 12).
 * `timeoutMs` bounds the whole exchange, the answer's body included.
 */
export function keepAliveRequests(timeoutMs: number): (url: URL, request: OutgoingRequest) => Promise<ServiceAnswer> {
  const secure = { client: https, agent: new https.Agent({ keepAlive: true }) };
  const plain = { client: http, agent: new http.Agent({ keepAlive: true }) };
  return async (url, { method, headers, body }) => {
    const encoded = await encodedBody(body);
    const { client, agent } = url.protocol === 'https:' ? secure : plain;
    return new Promise<ServiceAnswer>((resolve, reject) => {
      const outgoing = client.request(
        url,
        { method, agent, signal: AbortSignal.timeout(timeoutMs), headers: { ...headers, ...encoded?.headers } },
        (answer) => {
          const chunks: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.on('error', reject);
          answer.on('close', () => {
            if (!answer.complete) reject(new Error('the answer was cut short'));
          });
          answer.on('end', () => {
            const status = answer.statusCode ?? 0;
            const headers = new Headers();
            for (let index = 0; index < answer.rawHeaders.length; index += 2) headers.append(answer.rawHeaders[index]!, answer.rawHeaders[index + 1]!);
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({ status, ok: status >= 200 && status < 300, statusText: answer.statusMessage ?? '', headers, text: () => Promise.resolve(text) });
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.end(encoded?.bytes);
    });
  };
}

/** A FormData is written by the platform's own encoder, its multipart boundary in the content type. */
async function encodedBody(body: OutgoingRequest['body']): Promise<{ bytes: Uint8Array; headers: Record<string, string> } | undefined> {
  if (body === undefined) return undefined;
  if (typeof body === 'string') return withLength(Buffer.from(body), {});
  const encoder = new Response(body);
  return withLength(new Uint8Array(await encoder.arrayBuffer()), { 'content-type': encoder.headers.get('content-type')! });
}

function withLength(bytes: Uint8Array, headers: Record<string, string>) {
  return { bytes, headers: { ...headers, 'content-length': String(bytes.byteLength) } };
}
