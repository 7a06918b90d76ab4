import { readFileSync } from 'node:fs';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/**
 * Type-aware linting of the app, its dev tools, tests and scripts, with the types tsconfig.json
 * gives (read through TypeScript 6's compiler API, the package named `typescript`; `tsc` itself is
 * TypeScript 7). Formatting is Prettier's (.prettierrc.json), not ESLint's.
 */
/** The kinds' folders under src/, as src/kinds.ts lists them (each imported from `./<folder>/index.js`). */
const KIND_FOLDERS = [...readFileSync(new URL('src/kinds.ts', import.meta.url), 'utf8').matchAll(/from '\.\/([\w-]+)\/index\.js'/g)].map(
  (match) => match[1],
);

export default defineConfig(
  // The fixture kind's imports resolve only once copied into src/ (test/e2e/partner-copy.test.ts).
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'test-output/', 'bench/', 'test/e2e/fixtures/hydration-kind/'] },
  {
    files: ['src/**/*.ts', 'test/**/*.ts', 'scripts/**/*.js'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // tsc checks every name, in the .js files too (checkJs), and knows Node's globals.
      'no-undef': 'off',
      // tsc reports unused names (noUnusedLocals, noUnusedParameters): one check, not two.
      '@typescript-eslint/no-unused-vars': 'off',
      // Fakes and adapters implement Promise-returning interfaces with async functions that have
      // nothing to await; `async` still turns a throw into a rejection, as callers expect.
      '@typescript-eslint/require-await': 'off',
      // A rejection handed on as it came (an abort's reason, a thread's error) is whatever was thrown.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
      // URLSearchParams in a URL template is the query string; Node's global type is not the DOM lib's.
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allow: [{ from: 'package', package: '@types/node', name: 'URLSearchParams' }] },
      ],
    },
  },
  {
    // A kind is one folder: nothing outside it imports it but the list of kinds, src/kinds.ts, so
    // that removing a kind is deleting its folder and its line there. An import within a kind's
    // folder is `./…` and never names the folder.
    files: ['src/**/*.ts'],
    ignores: ['src/kinds.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `(^|/)(${KIND_FOLDERS.join('|')})/`,
              message: "A kind's folder is imported only by src/kinds.ts: read the kind through KINDS (src/kinds/kind.ts).",
            },
          ],
        },
      ],
    },
  },
  {
    // Kysely<any>: the database whatever its tables, as migrations and the schema helpers take it.
    files: ['src/db/**/*.ts', 'src/*/migrations/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests handle `any` on purpose and check it at run time: vitest's asymmetric matchers
    // (expect.any, expect.stringMatching) are typed `any`, as are the JSON answers and BullMQ job
    // data they assert on, and migration tests write through Kysely<any>. Calling an `any` is
    // still reported, and so are promises left floating.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Callbacks given to page.evaluate() run in the browser: their DOM types are not in the Node
    // program (tsconfig's lib), so TypeScript sees them as unresolved.
    files: ['test/**/*.browser.test.ts', 'test/helpers/browser.ts'],
    rules: { '@typescript-eslint/no-unsafe-call': 'off' },
  },
);
