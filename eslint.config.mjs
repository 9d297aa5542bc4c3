import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

// Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, and no runtime code
// from undici or zod (types only, through `import type`).
const sandboxBanned = [
  ...builtinModules,
  ...builtinModules.map((name) => `node:${name}`),
  'undici',
  'zod',
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.artifacts/**', '.temporal/**', '.test-build/**', 'test/replay/.reordered-*/**'] },
  js.configs.recommended,
  // Type-aware: the rules below read the types of src, test and bench through tsconfig.json.
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname } },
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // A promise nobody awaits loses its rejection: in a worker that is an unhandled rejection, in a workflow
      // a failed task. Await it, return it, or handle its failure (`void` marks one handled on purpose).
      '@typescript-eslint/no-floating-promises': 'error',
      // An async callback where a void one is expected (an event listener, a timer) drops its rejection.
      '@typescript-eslint/no-misused-promises': 'error',
      // Passing on a caught value of unknown type (translated when it is recognised) is not a new non-Error rejection.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // Off: an `async` function without `await` is how an interface that returns a promise, a fastify handler or
      // an async iterable is implemented here, and it turns a throw into a rejection, which callers rely on.
      '@typescript-eslint/require-await': 'off',
      // Off: its reports here are `unknown` values already past their object cases and test reads of string-or-object
      // fields; none renders "[object Object]".
      '@typescript-eslint/no-base-to-string': 'off',
      // Off: the methods it reports are closures declared with method syntax (`hasDecision(): boolean`), which keep no `this`.
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // Tests read JSON bodies and parsed output as `any` and let the assertion check the shape.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['src/workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: sandboxBanned.map((name) => ({
            name,
            message: 'Workflow code runs in the Temporal sandbox: use `import type` or move this to an activity.',
            allowTypeImports: true,
          })),
          patterns: [
            { group: ['**/api/*', '**/api', '**/emulator/**', '**/activities/*', '!**/activities/types'], message: 'Workflows import runtime code only from the workflow sandbox.', allowTypeImports: true },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly' } },
    // Plain scripts are CommonJS: they run before anything is built.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
