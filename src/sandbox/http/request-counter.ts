import type { RequestHandler } from 'express';
import type { SandboxRuntime } from '../runtime.js';

/** Counts requests by "METHOD /path" and status, or "no response" when the connection ended first. */
export function countRequests(runtime: SandboxRuntime): RequestHandler {
  return (req, res, next) => {
    const endpoint = `${req.method} ${req.path}`;
    res.on('close', () => {
      const byStatus = runtime.state.counters.requests.get(endpoint) ?? new Map<string, number>();
      const status = res.headersSent ? String(res.statusCode) : 'no response';
      byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
      runtime.state.counters.requests.set(endpoint, byStatus);
    });
    next();
  };
}
