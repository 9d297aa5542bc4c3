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
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { require: 'readonly', module: 'writable', process: 'readonly', console: 'readonly', __dirname: 'readonly' } },
    // Plain scripts are CommonJS: they run before anything is built.
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
