/**
 * A plain HTTP client that keeps cookies for one origin, as a browser would for the app,
 * and never follows redirects by itself, so a test or the bench sees every hop of a flow.
 */
export class CookieClient {
  private readonly cookies = new Map<string, string>();

  constructor(readonly origin: string) {}

  async request(pathOrUrl: string, init: RequestInit = {}): Promise<Response> {
    const url = new URL(pathOrUrl, this.origin);
    const headers = new Headers(init.headers);
    if (url.origin === this.origin && this.cookies.size > 0) headers.set('cookie', this.cookieHeader());
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    if (url.origin === this.origin) this.remember(response);
    return response;
  }

  get(pathOrUrl: string): Promise<Response> {
    return this.request(pathOrUrl);
  }

  postJson(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  }

  postForm(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  private remember(response: Response): void {
    for (const setCookie of response.headers.getSetCookie()) {
      const [pair = ''] = setCookie.split(';');
      const separator = pair.indexOf('=');
      const name = pair.slice(0, separator).trim();
      const expired = /;\s*expires=Thu, 01 Jan 1970/i.test(setCookie) || /;\s*max-age=0\b/i.test(setCookie);
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, pair.slice(separator + 1).trim());
    }
  }
}
