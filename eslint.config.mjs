import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

// Workflow code runs in Temporal's deterministic sandbox: no Node built-ins, and no runtime code from
// undici or zod (types only, through `import type`). Zod runs in the sandbox through one module only,
// src/domain/messages.ts, the schemas of the signals and updates, which workflows load on their first
// message through src/workflows/message-schemas.ts.
const nodeBuiltins = [...builtinModules, ...builtinModules.map((name) => `node:${name}`)];
const sandboxBanned = [...nodeBuiltins, 'undici', 'zod'];
const sandboxMessage = 'Workflow code runs in the Temporal sandbox: use `import type` or move this to an activity.';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.artifacts/**',
      '.temporal/**',
      '.seaweedfs/**',
      '.valyu-py/**',
      '.test-build/**',
      '.test-build-topology/**',
      'test/replay/.reordered-*/**',
    ],
  },
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
          paths: sandboxBanned.map((name) => ({ name, message: sandboxMessage, allowTypeImports: true })),
          patterns: [
            {
              group: ['**/api/*', '**/api', '**/emulator/**', '**/activities/*', '!**/activities/types'],
              message: 'Workflows import runtime code only from the workflow sandbox.',
              allowTypeImports: true,
            },
            {
              group: ['**/domain/messages'],
              message: "Use messageSchemas() from ./message-schemas: zod and the schemas load on a workflow's first message, not at its start.",
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  {
    // The domain's rules are loaded by workflows (in the sandbox) and by activities: the same limits as
    // workflow code, and it depends on neither side (see docs/ARCHITECTURE.md). messages.ts has its own block below.
    files: ['src/domain/**/*.ts'],
    ignores: ['src/domain/messages.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: sandboxBanned.map((name) => ({
            name,
            message: 'Domain code runs in the Temporal sandbox too: use `import type`, or keep this code out of src/domain.',
            allowTypeImports: true,
          })),
          patterns: [
            {
              group: ['**/api/*', '**/api', '**/pipelines/*', '**/pipelines'],
              message: 'The domain imports only types from api/ and pipelines/.',
              allowTypeImports: true,
            },
            {
              group: ['**/workflows/*', '**/workflows', '**/activities/*', '**/activities', '**/emulator/**', '@temporalio/*'],
              message: "The domain depends on neither workflows nor activities (nor Temporal's SDK): both import it.",
            },
          ],
        },
      ],
    },
  },
  {
    // The message schemas are workflow code too: zod, and the zod-only API schemas, but nothing else at runtime.
    files: ['src/domain/messages.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [...nodeBuiltins, 'undici'].map((name) => ({ name, message: sandboxMessage, allowTypeImports: true })),
          patterns: [
            {
              // The zod-only checkpoint schemas, not the API barrel: it would bundle every API schema into the workflows.
              regex: '(^|/)(api|emulator|activities)(/(?!schemas/checkpoints$).*)?$',
              message:
                'The message schemas run in the workflow sandbox: of the client, emulator and activities only api/schemas/checkpoints (zod alone) at runtime.',
              allowTypeImports: true,
            },
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
