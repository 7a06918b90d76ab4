import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { kindFolders, kindPlaces } from './helpers/kind-folders.js';

/**
 * A kind is its own places and one line in src/kinds.ts: its source `src/<kind>/`, its views
 * `views/<kind>/`, its tests `test/<kind>/` (its helpers too) and its end-to-end tests
 * `test/e2e/<kind>/`. No other file refers to a file of those places (an import, a type, a dynamic
 * import, a `new URL(…, import.meta.url)`), so that a partner removes a kind by deleting its four
 * folders and its line, and what remains compiles and passes its tests. Another kind's places are
 * outside too. The one reference allowed is src/kinds.ts's import of the kind's index.ts.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A file of the project as this test names it: relative to the root, with forward slashes. */
const projectPath = (absolute: string) => relative(ROOT, absolute).split(sep).join('/');

/** Folders whose files are not the project's sources: installed, built or written by runs. */
const NOT_SOURCES = new Set(['node_modules', 'dist', 'coverage', 'data', 'test-output', 'bench']);

/** The project's script and module files under `folder`. */
function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name.startsWith('.') || NOT_SOURCES.has(entry.name) ? [] : sourceFiles(path);
    return /\.(ts|js|mjs|cjs)$/.test(entry.name) ? [path] : [];
  });
}

/** The path `node` names, if it names one: an import or export, `import('…')` (a call or a type), `new URL('…', import.meta.url)`. */
function referencedPath(node: ts.Node): string | undefined {
  if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
    return node.moduleSpecifier.text;
  }
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
    const [specifier] = node.arguments;
    return specifier && ts.isStringLiteralLike(specifier) ? specifier.text : undefined;
  }
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
    return node.argument.literal.text;
  }
  if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'URL') {
    const [path, base] = node.arguments ?? [];
    const fromThisModule = base !== undefined && base.getText() === 'import.meta.url';
    return fromThisModule && path && ts.isStringLiteralLike(path) ? path.text : undefined;
  }
  return undefined;
}

/** The project's files (relative to its root) that `file` refers to by a relative path. */
function filesReferencedBy(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const referenced: string[] = [];
  const visit = (node: ts.Node) => {
    const path = referencedPath(node);
    if (path?.startsWith('.')) referenced.push(projectPath(resolve(dirname(file), path)));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return referenced;
}

const REFERENCES = sourceFiles(ROOT).map((file) => ({ from: projectPath(file), to: filesReferencedBy(file) }));

const isIn = (path: string, place: string) => path === place || path.startsWith(`${place}/`);

/** Every reference to a file of the kind's places from a file outside them, but src/kinds.ts's import of its index. */
function referencesFromOutside(folder: string): string[] {
  const places = kindPlaces(folder);
  const withinTheKind = (path: string) => places.some((place) => isIn(path, place));
  const isTheKindsLine = (from: string, to: string) => from === 'src/kinds.ts' && to === `src/${folder}/index.js`;
  return REFERENCES.filter(({ from }) => !withinTheKind(from)).flatMap(({ from, to }) =>
    to.filter((path) => withinTheKind(path) && !isTheKindsLine(from, path)).map((path) => `${from} → ${path}`),
  );
}

describe('the kinds src/kinds.ts registers', () => {
  const folders = kindFolders(ROOT);

  it('are each a folder of src/ with its index.ts', () => {
    expect(folders.length).toBeGreaterThan(0);
    for (const folder of folders) expect(existsSync(join(ROOT, 'src', folder, 'index.ts')), folder).toBe(true);
  });

  it.each(folders)('%s: no file outside its own places refers to them, but its line in src/kinds.ts', (folder) => {
    expect(referencesFromOutside(folder)).toEqual([]);
  });
});
