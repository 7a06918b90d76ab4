import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';

const BOUNDARY = 'held-upload-boundary-2c9e';

export interface HeldUpload {
  /** Whether the app answered before the rest was sent (it refused the upload at once). */
  answeredEarly(): boolean;
  /** The answer's status, once it comes, and when it came (Date.now()), whether or not the rest was sent. */
  answer(): Promise<{ status: number; at: number }>;
  /** Sends the rest of the body, and resolves with the answer's status and Location. */
  finish(): Promise<{ status: number; location: string | undefined }>;
  /** Closes the connection without sending the rest, as a client that leaves does. */
  abandon(): void;
}

/**
 * Starts a multipart upload to `url` (the text `fields`, then `file` in the part `file`), with its
 * true Content-Length, and stops after the file's first `heldAfter` bytes, the connection open,
 * until `finish()` sends the rest: a request under way for as long as a test needs. Resolves once
 * the headers and those bytes have been handed to the socket. From `localAddress` (127.0.0.2, …)
 * the app sees another client address.
 */
export async function holdUpload(
  url: string,
  {
    cookie,
    fields,
    file,
    heldAfter = 50,
    localAddress,
  }: { cookie: string; fields: Record<string, string>; file: Uint8Array; heldAfter?: number; localAddress?: string },
): Promise<HeldUpload> {
  const textParts = Object.entries(fields).map(
    ([name, value]) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  const opening = Buffer.from(
    `${textParts.join('')}--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="held.fit"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const closing = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const req = request(url, {
    method: 'POST',
    localAddress,
    headers: {
      'Content-Type': `multipart/form-data; boundary=${BOUNDARY}`,
      'Content-Length': String(opening.length + file.length + closing.length),
      Cookie: cookie,
    },
  });
  // A refusal closes the connection: writes after it fail, as expected.
  req.on('error', () => {});
  let early = false;
  const answered = once(req, 'response') as Promise<[IncomingMessage]>;
  const answeredAt = answered.then(() => {
    early = true;
    return Date.now();
  });
  answeredAt.catch(() => {});
  await new Promise((sent) => req.write(Buffer.concat([opening, file.subarray(0, heldAfter)]), sent));
  return {
    answeredEarly: () => early,
    async answer() {
      const [[response], at] = await Promise.all([answered, answeredAt]);
      response.resume();
      return { status: response.statusCode ?? 0, at };
    },
    async finish() {
      req.end(Buffer.concat([file.subarray(heldAfter), closing]));
      const [response] = await answered;
      response.resume();
      await once(response, 'end');
      return { status: response.statusCode ?? 0, location: response.headers.location };
    },
    abandon() {
      req.destroy();
    },
  };
}
