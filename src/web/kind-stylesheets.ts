import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Router } from 'express';
import { KINDS } from '../kinds.js';

const VIEWS_FOLDER = fileURLToPath(new URL('../../views', import.meta.url));

/**
 * The kinds' own stylesheets (Kind.stylesheet, under views/<kind>/): each served at its own address
 * and linked from every page after the shared one, so that a kind's look is in its folder and goes
 * with it. Every page links them all, since a kind may show a part on the dashboard too.
 */
const KIND_STYLESHEETS = KINDS.flatMap((kind) =>
  kind.stylesheet ? [{ href: `/assets/kinds/${kind.name}.css`, file: join(VIEWS_FOLDER, kind.stylesheet) }] : [],
);

/** The addresses the pages link, in the order of src/kinds.ts. */
export const KIND_STYLESHEET_HREFS = KIND_STYLESHEETS.map(({ href }) => href);

/** Serves each kind's stylesheet, cached and revalidated as the shared assets are. */
export function kindStylesheets(): Router {
  const router = Router();
  for (const { href, file } of KIND_STYLESHEETS) {
    router.get(href, (_req, res) => {
      res.sendFile(file);
    });
  }
  return router;
}
