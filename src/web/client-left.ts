import type { Response } from 'express';

/** The client closed the connection before its answer: there is no one to answer. */
export class ClientLeftError extends Error {
  override name = 'ClientLeftError';

  constructor() {
    super('the client closed the connection before its answer');
  }
}

/** Aborts, with a ClientLeftError, when the connection closes before the response has been sent. */
export function signalOnClientLeaving(res: Response): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new ClientLeftError());
  });
  return controller.signal;
}
