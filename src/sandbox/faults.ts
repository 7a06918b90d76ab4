import type { Request, RequestHandler, Response } from 'express';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { ApiError } from './http/api-error.js';
import type { SandboxRuntime } from './runtime.js';
import type { FaultKind, FaultTarget } from './settings.js';

/**
 * Answers a share (`faultRate`) of the target's requests with a fault picked evenly from `faultKinds`.
 * Draws come from the seeded generator, so the same seed and the same requests give the same faults.
 * 500, 503, 429 and stall are not applied; drop is applied and then the connection is cut.
 */
export function injectFaults(runtime: SandboxRuntime, target: FaultTarget): RequestHandler {
  return (req, res, next) => {
    const fault = drawFault(runtime, target);
    if (fault === null) return next();
    runtime.state.counters.faults[fault] += 1;
    switch (fault) {
      case '500':
        throw new ApiError(500, 'server_error', 'injected fault: internal error');
      case '503':
        throw new ApiError(503, 'temporarily_unavailable', 'injected fault: service unavailable');
      case '429':
        throw new ApiError(429, 'rate_limited', 'injected fault: too many requests', {
          headers: { 'Retry-After': String(runtime.settings.retryAfterS) },
        });
      case 'stall':
        return stallThenHangUp(req, res, runtime.settings.stallMs);
      case 'drop':
        hangUpInsteadOfResponding(req, res);
        return next();
    }
  };
}

function drawFault(runtime: SandboxRuntime, target: FaultTarget): FaultKind | null {
  const { faultTargets, faultRate, faultKinds } = runtime.settings;
  if (!faultTargets.includes(target)) return null;
  if (uniformFloat64(runtime.faultRandom) >= faultRate) return null;
  return faultKinds[uniformInt(runtime.faultRandom, 0, faultKinds.length - 1)] ?? null;
}

/** Holds the request past the client's patience, then cuts the connection without an answer. */
function stallThenHangUp(req: Request, res: Response, stallMs: number): void {
  const timer = setTimeout(() => req.socket.destroy(), stallMs);
  res.on('close', () => clearTimeout(timer));
}

/** The handler runs and its write stays; the answer is lost, as when a connection breaks mid-reply. */
function hangUpInsteadOfResponding(req: Request, res: Response): void {
  res.end = function hangUp() {
    req.socket.destroy();
    return res;
  };
}
