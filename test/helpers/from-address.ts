import { request } from 'node:http';

export interface PlainResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

/**
 * POSTs JSON from another loopback address (127.0.0.2, 127.0.0.3, …), as a second machine
 * would: the app sees it as another client address.
 */
export function postJsonFrom(localAddress: string, url: string, body: unknown): Promise<PlainResponse> {
  const options = { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } };
  return new Promise((resolve, reject) => {
    const outgoing = request(url, options, async (response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) });
    });
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify(body));
  });
}
