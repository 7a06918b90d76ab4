import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { StateSnapshot } from './admin/snapshot.js';

const VIEWS_FOLDER = fileURLToPath(new URL('../../views/sandbox', import.meta.url));

export interface ConsentPage {
  decisionPath: string;
  clientId: string;
  requestId: string;
  scopes: { name: string; description: string }[];
  withheldScopes: { name: string; description: string }[];
  athletes: string[];
  problem: string | null;
}

export interface ErrorPage {
  description: string;
  /** Where the person can start again; empty when the application itself cannot be trusted. */
  applications: string[];
}

/** The sandbox's HTML pages; `<%= %>` in the templates escapes, so everything shown is safe. */
export interface Views {
  consent(page: ConsentPage): string;
  error(page: ErrorPage): string;
  state(page: StateSnapshot): string;
}

export function createViews(): Views {
  const eta = new Eta({ views: VIEWS_FOLDER, cache: true });
  return {
    consent: (page) => eta.render('consent', page),
    error: (page) => eta.render('error', page),
    state: (page) => eta.render('state', page),
  };
}
