import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';

const VIEWS_FOLDER = fileURLToPath(new URL('../../views', import.meta.url));

export type RenderView = (name: string, data?: Record<string, unknown>) => string;

/** Templates in `views/`; `<%= %>` escapes HTML, so user data is safe to print. */
export function createViewRenderer(): RenderView {
  const eta = new Eta({ views: VIEWS_FOLDER, cache: true });
  return (name, data = {}) => eta.render(name, data);
}
