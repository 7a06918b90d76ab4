import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { KINDS, SYNCED_KINDS } from '../kinds.js';
import { wordList } from '../text/word-list.js';

const VIEWS_FOLDER = fileURLToPath(new URL('../../views', import.meta.url));

/** The pages' navigation between the dashboard and the account: each kind's page, in the order of src/kinds.ts. */
const KIND_PAGES = KINDS.map((kind) => ({ href: kind.page.path, label: kind.page.navLabel }));

/**
 * The kinds' own stylesheets (Kind.stylesheet, under views/<kind>/), each at its own address
 * (kind-stylesheets.ts serves them) and linked from every page after the shared one, so that a
 * kind's look is in its folder and goes with it. Every page links them all, since a kind may show
 * a part on the dashboard too.
 */
export const KIND_STYLESHEETS = KINDS.flatMap((kind) =>
  kind.stylesheet ? [{ href: `/assets/kinds/${kind.name}.css`, file: join(VIEWS_FOLDER, kind.stylesheet) }] : [],
);
const KIND_STYLESHEET_HREFS = KIND_STYLESHEETS.map(({ href }) => href);

/** What the app keeps in the service, in words: "meals, wellness and activities". */
const SYNCED_WORDS = wordList(SYNCED_KINDS.map((kind) => kind.sync.inWords)) ?? 'data';

export type RenderView = (name: string, data?: Record<string, unknown>) => string;

/** Templates in `views/` (a kind's in `views/<kind>/`); `<%= %>` escapes HTML, so user data is safe to print. */
export function createViewRenderer(): RenderView {
  const eta = new Eta({ views: VIEWS_FOLDER, cache: true });
  return (name, data = {}) =>
    eta.render(name, { kindPages: KIND_PAGES, kindStylesheets: KIND_STYLESHEET_HREFS, syncedWords: SYNCED_WORDS, ...data });
}
