import type { Request, RequestHandler, Response } from 'express';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { ApiError } from './http/api-error.js';
import type { SandboxRuntime } from './runtime.js';
import { FAULT_KINDS, type FaultKind, type FaultTarget, type Settings } from './settings.js';

/**
 * Answers a share of the target's requests with each kind of fault, as faultRatesOf gives them.
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

/**
 * The share of the target's requests that meet each kind of fault: the shorthand (`faultRate` spread
 * evenly over `faultKinds`, for each of `faultTargets`) plus the target's own `faultRates`.
 */
function faultRatesOf(settings: Settings, target: FaultTarget): Record<FaultKind, number> {
  const { faultRate, faultKinds, faultTargets, faultRates } = settings;
  const spread = faultTargets.includes(target) ? faultRate / faultKinds.length : 0;
  return Object.fromEntries(
    FAULT_KINDS.map((kind) => [kind, (faultKinds.includes(kind) ? spread : 0) + (faultRates[target][kind] ?? 0)]),
  ) as Record<FaultKind, number>;
}

/** One draw per request: the kinds' shares laid end to end, and where the draw falls among them. */
function drawFault(runtime: SandboxRuntime, target: FaultTarget): FaultKind | null {
  const rates = faultRatesOf(runtime.settings, target);
  if (FAULT_KINDS.every((kind) => rates[kind] === 0)) return null;
  const draw = uniformFloat64(runtime.faultRandom);
  let reached = 0;
  for (const kind of FAULT_KINDS) {
    reached += rates[kind];
    if (draw < reached) return kind;
  }
  return null;
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
