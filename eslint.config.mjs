// Lint rules: typed TypeScript checks everywhere, plus a determinism guard for workflow
// code (the Temporal samples' rule: no Node built-ins, no I/O libraries in workflows/).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.stack/**', 'eslint.config.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            ...builtinModules.filter((m) => !['assert', 'url', 'util'].includes(m)).flatMap((m) => [m, `node:${m}`]),
            'mongoose', 'ioredis', 'undici', '@elastic/elasticsearch', '@google/genai',
            '@temporalio/activity', '@temporalio/client', '@temporalio/worker',
          ],
          patterns: [{ group: ['../platform/*', '!../platform/temporal', '../platform/temporal/*', '!../platform/temporal/workflow-ref', '../services/*', '../models/*', '../api/*', '../activities/*'], allowTypeImports: true, message: 'workflows may import types only from I/O modules' }],
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      // chai's `expect(x).to.be.true` style is an expression statement by design.
      '@typescript-eslint/no-unused-expressions': 'off',
    },
  },
  // Plain JavaScript loaded by tools (the Redocly plugin): no TypeScript project to type-check it against.
  { files: ['**/*.mjs'], ...tseslint.configs.disableTypeChecked },
);
