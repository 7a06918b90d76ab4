import { once } from 'node:events';
import { request, type IncomingMessage } from 'node:http';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendToAppAddressOnThisMachine } from '../../src/web/loopback-address.js';
import { serveWithErrorHandler } from '../helpers/bare-app.js';
import { startStack, type Stack } from '../helpers/stack.js';

/** A request to `url`'s server whose Host header is `host`, as a browser sends it for an address that reaches that server. */
async function requestWithHost(url: string, host: string, path: string, method = 'GET', headers: Record<string, string> = {}) {
  const { hostname, port } = new URL(url);
  const req = request({ hostname, port, path, method, headers: { ...headers, host } });
  req.end();
  const [response] = (await once(req, 'response')) as [IncomingMessage];
  response.resume();
  return { status: response.statusCode, location: response.headers.location };
}

describe('a page asked for at another loopback spelling of APP_BASE_URL', () => {
  let stack: Stack;
  let port: string;

  beforeAll(async () => {
    // The test stack's APP_BASE_URL is http://127.0.0.1:<port>.
    stack = await startStack();
    port = new URL(stack.appUrl).port;
  });
  afterAll(async () => {
    await stack.close();
  });

  it.each(['localhost', '[::1]', '127.0.0.2'])(
    'at %s is sent to the same page at APP_BASE_URL before any form is shown',
    async (hostname) => {
      for (const path of ['/signup', '/login?next=%2Fwellness', '/wellness']) {
        const answer = await requestWithHost(stack.appUrl, `${hostname}:${port}`, path);
        expect(answer).toEqual({ status: 307, location: `${stack.appUrl}${path}` });
      }
    },
  );

  it('stays on APP_BASE_URL whatever its path looks like', async () => {
    const answer = await requestWithHost(stack.appUrl, `localhost:${port}`, '//evil.example/');
    expect(answer.location).toBe(`${stack.appUrl}//evil.example/`);
    expect(new URL(answer.location!).origin).toBe(stack.appUrl);
  });

  it('is shown at APP_BASE_URL itself', async () => {
    expect(await requestWithHost(stack.appUrl, `127.0.0.1:${port}`, '/signup')).toEqual({ status: 200, location: undefined });
  });

  it('is not how the JSON API or a form’s post is answered: those are served or refused where they are sent', async () => {
    expect(await requestWithHost(stack.appUrl, `localhost:${port}`, '/api/me')).toEqual({ status: 401, location: undefined });
    const post = await requestWithHost(stack.appUrl, `localhost:${port}`, '/login', 'POST', { origin: `http://localhost:${port}` });
    expect(post.status).toBe(403);
  });
});

describe('an APP_BASE_URL on another host', () => {
  it('sends no page elsewhere, whatever the Host it was asked for at', async () => {
    const app = express();
    app.use(sendToAppAddressOnThisMachine('https://sync.example'));
    app.get('/signup', (_req, res) => {
      res.send('the sign-up form');
    });
    const served = await serveWithErrorHandler(app);
    try {
      for (const host of ['localhost', '127.0.0.1', 'sync.example']) {
        expect(await requestWithHost(served.url, host, '/signup')).toEqual({ status: 200, location: undefined });
      }
    } finally {
      await served.close();
    }
  });
});
