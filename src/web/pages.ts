import type { Request, Response } from 'express';
import type { RenderView } from './views.js';

export type RenderPage = (
  req: Request,
  res: Response,
  view: string,
  data?: Record<string, unknown>,
  status?: number,
) => void;

/** Renders a page with what every page needs: the signed-in user and the form token. */
export function createPageRenderer(render: RenderView): RenderPage {
  return (req, res, view, data = {}, status = 200) => {
    res.status(status).send(render(view, { user: res.locals.user, csrfToken: req.csrfToken?.(), ...data }));
  };
}
