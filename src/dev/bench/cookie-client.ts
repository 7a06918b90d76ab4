/** The bench's browser: keeps the app's session cookie and never follows redirects by itself. */
export class CookieClient {
  private readonly cookies = new Map<string, string>();

  constructor(readonly origin: string) {}

  async request(pathOrUrl: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(pathOrUrl, this.origin);
    const headers = new Headers(init.headers);
    if (url.origin === this.origin && this.cookies.size > 0) {
      headers.set('cookie', [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; '));
    }
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    if (url.origin === this.origin) this.remember(response);
    return response;
  }

  postJson(path: string, body: unknown): Promise<Response> {
    return this.request(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }

  private remember(response: Response): void {
    for (const setCookie of response.headers.getSetCookie()) {
      const [pair = ''] = setCookie.split(';');
      const separator = pair.indexOf('=');
      this.cookies.set(pair.slice(0, separator).trim(), pair.slice(separator + 1).trim());
    }
  }
}
