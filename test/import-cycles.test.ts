import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No module of src/ reaches itself again through the imports it runs: dependencies point one way
 * (web → domain → store/queue → provider client), and src/kinds.ts, which imports every kind, is
 * imported only by what is above the kinds. Type-only imports are left out: they are gone at run
 * time, and a type may well name what is above it (a contract's types, a table's).
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');

/**
 * The imports that may close a circle, each read only when its functions are called, never while
 * the modules load: the sync path's list of the kinds it sends, from the list of kinds (whose kinds
 * write to the outbox).
 */
const READ_WHEN_CALLED = [['src/sync/sync-kinds.ts', 'src/kinds.ts']];

function sourceFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** The files of src/ that `file` imports at run time. */
function runtimeImportsOf(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const imported: string[] = [];
  for (const statement of source.statements) {
    const declaration = ts.isImportDeclaration(statement) || ts.isExportDeclaration(statement) ? statement : undefined;
    if (!declaration?.moduleSpecifier || !ts.isStringLiteral(declaration.moduleSpecifier)) continue;
    if (ts.isImportDeclaration(declaration) && isTypeOnly(declaration)) continue;
    if (ts.isExportDeclaration(declaration) && declaration.isTypeOnly) continue;
    const specifier = declaration.moduleSpecifier.text;
    if (!specifier.startsWith('.')) continue;
    const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts');
    const edge = [relative(ROOT, file), relative(ROOT, target)];
    if (!READ_WHEN_CALLED.some(([from, to]) => edge[0] === from && edge[1] === to)) imported.push(target);
  }
  return imported;
}

function isTypeOnly(declaration: ts.ImportDeclaration): boolean {
  const clause = declaration.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const bindings = clause.namedBindings;
  return !clause.name && bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.every((element) => element.isTypeOnly);
}

/** Every circle of run-time imports, each as the files along it. */
function importCircles(files: string[]): string[][] {
  const graph = new Map(files.map((file) => [file, runtimeImportsOf(file)]));
  const circles: string[][] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const visit = (file: string) => {
    const at = path.indexOf(file);
    if (at >= 0) {
      circles.push([...path.slice(at), file].map((each) => relative(ROOT, each)));
      return;
    }
    if (done.has(file) || !graph.has(file)) return;
    path.push(file);
    for (const next of graph.get(file)!) visit(next);
    path.pop();
    done.add(file);
  };
  for (const file of files) visit(file);
  return circles;
}

describe('the imports of src/', () => {
  // It parses every file of src/: seconds on a busy machine.
  it('make no circle at run time', { timeout: 120_000 }, () => {
    expect(importCircles(sourceFiles(SRC))).toEqual([]);
  });
});
