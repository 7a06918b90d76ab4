import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import { createLogger } from '../../src/logger.js';
import { createErrorHandler } from '../../src/web/error-handler.js';
import { createPageRenderer } from '../../src/web/pages.js';
import { createViewRenderer } from '../../src/web/views.js';

export interface ServedApp {
  url: string;
  /** Ends its connections, then stops listening. */
  close(): Promise<void>;
}

/**
 * Serves a bare app (the routes of one middleware under test) on a free port of 127.0.0.1, with the
 * app's own error handler after its routes, so refusals answer as they do in the app.
 */
export async function serveWithErrorHandler(app: Express): Promise<ServedApp> {
  app.use(
    createErrorHandler({
      logger: createLogger('silent', 'test'),
      renderPage: createPageRenderer(createViewRenderer(), () => 'form-token'),
    }),
  );
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
