import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Config } from '../config.js';
import { listenOn } from '../listen.js';
import type { Logger } from '../logger.js';

export interface MetricsServer {
  /** The port it listens on; undefined when METRICS_PORT is not set. */
  port: number | undefined;
  close(): Promise<void>;
}

/**
 * GET /metrics in Prometheus' text format, on a port of its own (METRICS_PORT, off unless set),
 * so the metrics stay off the app's public address.
 */
export async function serveMetrics(settings: Config['metrics'], registry: Registry, logger: Logger): Promise<MetricsServer> {
  if (settings.port === undefined) return { port: undefined, close: async () => undefined };
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        logger.warn({ err: error }, 'metrics could not be collected');
        res.writeHead(500).end();
      },
    );
  });
  await listenOn(server, { host: settings.host, port: settings.port, hostSetting: 'METRICS_HOST', portSetting: 'METRICS_PORT' });
  const { port } = server.address() as AddressInfo;
  logger.info({ host: settings.host, port }, 'metrics listening');
  return { port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
