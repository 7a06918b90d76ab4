import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';

const BOUNDARY = 'held-upload-boundary-2c9e';

export interface HeldUpload {
  /** Whether the app answered before the rest was sent (it refused the upload at once). */
  answeredEarly(): boolean;
  /** Sends the rest of the body, and resolves with the answer's status and Location. */
  finish(): Promise<{ status: number; location: string | undefined }>;
}

/**
 * Starts a multipart upload to `url` (the text `fields`, then `file` in the part `file`), with its
 * true Content-Length, and stops after the file's first `heldAfter` bytes, the connection open,
 * until `finish()` sends the rest: a request under way for as long as a test needs. Resolves once
 * the headers and those bytes have been handed to the socket.
 */
export async function holdUpload(
  url: string,
  { cookie, fields, file, heldAfter = 50 }: { cookie: string; fields: Record<string, string>; file: Uint8Array; heldAfter?: number },
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
  answered.then(() => (early = true)).catch(() => {});
  await new Promise((sent) => req.write(Buffer.concat([opening, file.subarray(0, heldAfter)]), sent));
  return {
    answeredEarly: () => early,
    async finish() {
      req.end(Buffer.concat([file.subarray(heldAfter), closing]));
      const [response] = await answered;
      response.resume();
      await once(response, 'end');
      return { status: response.statusCode ?? 0, location: response.headers.location };
    },
  };
}
