// Lint rules: typed TypeScript checks everywhere, the layers' import directions with no
// circles (issue 17), plus a determinism guard for workflow code (the Temporal samples'
// rule: no Node built-ins, no I/O libraries in workflows/).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { builtinModules } from 'node:module';

const FEATURE_LAYERS = ['./services', './api', './workflows', './activities', './workers'];
// Workflow refs and signal names live in workflows/*.shared.ts, which anyone may import.
const WORKFLOW_CODE = { from: './workflows/**', except: ['**/*.shared.ts'] };
// A store call is one of these methods on a PascalCase name (a model); the globals with such names are not models.
const STORE_METHODS =
  '/^(find|findOne|findById|create|updateOne|updateMany|deleteOne|deleteMany|countDocuments|aggregate|insertMany|replaceOne|exists|bulkWrite|findOneAndUpdate|findByIdAndUpdate|findOneAndDelete|findByIdAndDelete|distinct)$/';
const NOT_MODELS = '/^(ApplicationFailure|Object|Promise|Array)$/';
const STORE_CALL = {
  selector: `CallExpression[callee.object.name=/^[A-Z]/][callee.object.name!=${NOT_MODELS}][callee.property.name=${STORE_METHODS}]`,
  message: 'routes and activities call a use case in services/, not the store (a model method belongs in services/<feature>/)',
};
// A workflow id is spelled once, by its function in workflows/*.shared.ts (issue 40): a template
// literal given as `workflowId`/`workflow_id` (a property, a variable or an assignment) spells it again.
const WORKFLOW_ID = '/^workflow(Id|_id)$/';
const WORKFLOW_ID_LITERALS = [
  `Property[key.name=${WORKFLOW_ID}] > TemplateLiteral.value`,
  `VariableDeclarator[id.name=${WORKFLOW_ID}] > TemplateLiteral.init`,
  `AssignmentExpression[left.property.name=${WORKFLOW_ID}] > TemplateLiteral.right`,
].map((selector) => ({ selector, message: 'a workflow id comes from its function in workflows/*.shared.ts, not a template literal' }));

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
    // Layers import downwards only: api → services → platform/models; workers wire it all.
    files: [
      'api/**/*.ts',
      'services/**/*.ts',
      'platform/**/*.ts',
      'models/**/*.ts',
      'workflows/**/*.ts',
      'activities/**/*.ts',
      'workers/**/*.ts',
    ],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      // no-cycle parses each imported module itself: tell it how to read TypeScript.
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.js'],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './platform', from: FEATURE_LAYERS, message: 'platform/ is what features stand on: it imports no feature' },
            { target: './models', from: FEATURE_LAYERS, message: 'models/ holds schemas only: it imports no feature' },
            { target: './services', from: ['./api', './activities', './workers'], message: 'a use case does not know its caller' },
            { target: './services', ...WORKFLOW_CODE, message: 'services start workflows through the refs in workflows/*.shared.ts' },
            { target: './api', from: ['./activities', './workers'], message: 'the API calls use cases, not activities or the worker' },
            { target: './api', ...WORKFLOW_CODE, message: 'the API starts workflows through the refs in workflows/*.shared.ts' },
            { target: './activities', from: ['./api', './workers'], message: 'activities are adapters over use cases' },
            { target: './activities', ...WORKFLOW_CODE, message: 'activities import workflow refs only from workflows/*.shared.ts' },
            { target: './workflows', from: './workers', message: 'nothing imports the worker: it wires everything' },
          ],
        },
      ],
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
            'mongoose',
            'ioredis',
            'undici',
            '@elastic/elasticsearch',
            '@google/genai',
            '@temporalio/activity',
            '@temporalio/client',
            '@temporalio/worker',
          ],
          patterns: [
            {
              group: [
                '../platform/*',
                '!../platform/temporal',
                '../platform/temporal/*',
                '!../platform/temporal/workflow-ref',
                '../services/*',
                '../models/*',
                '../api/*',
                '../activities/*',
              ],
              allowTypeImports: true,
              message: 'workflows may import types only from I/O modules',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['api/**/*.ts', 'services/**/*.ts', 'activities/**/*.ts', 'workflows/**/*.ts', 'workers/**/*.ts', 'platform/**/*.ts'],
    ignores: ['**/*.shared.ts'],
    rules: { 'no-restricted-syntax': ['error', ...WORKFLOW_ID_LITERALS] },
  },
  {
    // Routes and activities adapt a use case; the store is reached only from services/ (issue 32).
    // (This rule's list replaces the one above for these files, so it repeats the workflow-id selectors.)
    files: ['api/**/*.ts', 'activities/**/*.ts'],
    rules: { 'no-restricted-syntax': ['error', STORE_CALL, ...WORKFLOW_ID_LITERALS] },
  },
  {
    // platform/ knows no feature (issue 32): of models/ it reads only the base helpers, the write
    // announcements, the outbox's own table, the list index's pending marks and the claims; features hand it
    // what it serves (services/wiring.ts).
    files: ['platform/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+models/(?!(base|writes|event|pending-list-write|claim)$)',
              message: 'platform/ imports no feature model: features hand it their specs (services/wiring.ts)',
            },
            {
              regex: '^(\\.\\./)+(services|api|activities|workflows|workers)(/|$)',
              message: 'platform/ is what features stand on: it imports no feature',
            },
          ],
        },
      ],
    },
  },
  {
    // Routes parse, call a use case and shape the answer (issue 17); a longer one holds a story that belongs in services/.
    // Scoping is the use case's (issue 40): it takes ids and pages, and looks up and lists within the organization.
    files: ['api/routes/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 200 }],
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+platform/(find-owned|lists)(/|$)',
              message: 'a route passes ids and queries to a use case, which looks up (findOwned) and lists (listPage) in services/',
            },
          ],
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
