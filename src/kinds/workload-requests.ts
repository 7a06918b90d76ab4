import type { WriteSort } from './workload.js';

/** The answer, or undefined when none came (refused, reset, timed out). */
export const answerOf = (request: Promise<Response>): Promise<Response | undefined> => request.catch(() => undefined);

/** Not acknowledged and perhaps applied: no answer, or a server error. A 4xx was refused, nothing applied. */
export const unacknowledged = (response: Response | undefined): boolean => response === undefined || response.status >= 500;

/** Lets go of a body nobody reads, so that its connection is free again; the status, if an answer came. */
export async function finish(response: Response | undefined): Promise<number | undefined> {
  if (response !== undefined && !response.bodyUsed) await response.body?.cancel();
  return response?.status;
}

/** The counts every chaos ledger keeps: acknowledged writes by sort, the others by what came back. */
export class WriteCounts {
  readonly acknowledged: Record<WriteSort, number> = { add: 0, edit: 0, delete: 0 };
  readonly unacknowledged: Record<string, number> = {};

  /** Counts a write that got no acknowledgement by its answer: a status code, or `no answer`. */
  countUnacknowledged(response: Response | undefined): void {
    const answer = response === undefined ? 'no answer' : String(response.status);
    this.unacknowledged[answer] = (this.unacknowledged[answer] ?? 0) + 1;
  }
}

export const jsonRequest = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
