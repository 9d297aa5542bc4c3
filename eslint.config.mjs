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
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
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
    // The domain's rules are loaded by workflows (in the sandbox) and by activities: the same limits as
    // workflow code, and it depends on neither side (see docs/ARCHITECTURE.md).
    files: ['src/domain/**/*.ts'],
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
            { group: ['**/api/*', '**/api', '**/pipelines/*', '**/pipelines'], message: 'The domain imports only types from api/ and pipelines/.', allowTypeImports: true },
            { group: ['**/workflows/*', '**/workflows', '**/activities/*', '**/activities', '**/emulator/**', '@temporalio/*'], message: 'The domain depends on neither workflows nor activities (nor Temporal\'s SDK): both import it.' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly' } },
    // Plain scripts are CommonJS: they run before anything is built.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
