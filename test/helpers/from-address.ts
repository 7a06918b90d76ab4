import { request } from 'node:http';
import { text } from 'node:stream/consumers';

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
    const outgoing = request(url, options, (response) => {
      text(response)
        .then((answer) => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(answer) }))
        .catch(reject);
    });
    outgoing.on('error', reject);
    outgoing.end(JSON.stringify(body));
  });
}
