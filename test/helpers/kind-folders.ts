import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The kinds' folders under src/, as src/kinds.ts imports them: each kind's `./<folder>/index.js`
 * (eslint.config.js reads them the same way).
 */
export function kindFolders(root: string): string[] {
  const list = readFileSync(join(root, 'src/kinds.ts'), 'utf8');
  return [...list.matchAll(/from '\.\/([\w-]+)\/index\.js'/g)].map((match) => match[1]!);
}

/**
 * A kind's own places, relative to the project's root: its source, its views, its tests and its
 * end-to-end tests. Nothing outside them refers to the kind but its line in src/kinds.ts, so that
 * a partner removes the kind by deleting these folders and that line.
 */
export function kindPlaces(folder: string): string[] {
  return [`src/${folder}`, `views/${folder}`, `test/${folder}`, `test/e2e/${folder}`];
}
