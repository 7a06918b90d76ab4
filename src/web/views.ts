import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import { KINDS, SYNCED_KINDS } from '../kinds.js';
import { wordList } from '../text/word-list.js';
import { KIND_STYLESHEET_HREFS } from './kind-stylesheets.js';

const VIEWS_FOLDER = fileURLToPath(new URL('../../views', import.meta.url));

/** The pages' navigation between the dashboard and the account: each kind's page, in the order of src/kinds.ts. */
const KIND_PAGES = KINDS.map((kind) => ({ href: kind.page.path, label: kind.page.navLabel }));

/** What the app keeps in the service, in words: "meals, wellness and activities". */
const SYNCED_WORDS = wordList(SYNCED_KINDS.map((kind) => kind.sync.inWords)) ?? 'data';

export type RenderView = (name: string, data?: Record<string, unknown>) => string;

/** Templates in `views/` (a kind's in `views/<kind>/`); `<%= %>` escapes HTML, so user data is safe to print. */
export function createViewRenderer(): RenderView {
  const eta = new Eta({ views: VIEWS_FOLDER, cache: true });
  return (name, data = {}) =>
    eta.render(name, { kindPages: KIND_PAGES, kindStylesheets: KIND_STYLESHEET_HREFS, syncedWords: SYNCED_WORDS, ...data });
}
