import type { CookieClient } from '../../src/dev/cookie-client.js';

export { CookieClient } from '../../src/dev/cookie-client.js';

/** The value of a hidden form field in an HTML page, e.g. the CSRF token. */
export function hiddenField(html: string, name: string): string {
  const match = html.match(new RegExp(`name="${name}" value="([^"]*)"`));
  if (!match?.[1]) throw new Error(`no hidden field ${name} in the page`);
  return match[1];
}

/** The stylesheets an HTML page links, in its order. */
export function stylesheetLinks(html: string): string[] {
  return [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map(([, href]) => href ?? '');
}

export interface Me {
  email: string;
  timezone: string;
  connection: null | { status: 'connected' | 'needs_reconnect'; scopes: string[] };
}

export interface ApiError {
  error: string;
  message: string;
  fields?: string[];
}

/** A response body as the test expects it to be shaped; the assertions that follow check it. */
export async function bodyOf<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** Posts a form as a person does: opens the page that holds it (for its token), then sends the fields. */
export async function submitForm(client: CookieClient, page: string, action: string, fields: Record<string, string>): Promise<Response> {
  const html = await (await client.get(page)).text();
  return client.postForm(action, { ...fields, _csrf: hiddenField(html, '_csrf') });
}
