// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

/*
 * Which lib may import which: the arrows point down only, so there is no cycle, and no lib imports an app.
 * A new arrow is a decision about the layering, made here rather than in review.
 */
const LIB_IMPORTS = {
  config: [],
  contracts: [],
  client: [],
  egress: [],
  redis: ['config'],
  observability: ['config'],
  persistence: ['config', 'contracts'],
  documents: ['config'],
  storage: ['config', 'persistence'],
  'run-events': ['config', 'contracts', 'redis'],
  queues: ['config', 'contracts', 'observability', 'redis'],
  identity: ['config', 'contracts', 'persistence', 'redis'],
  files: ['config', 'contracts', 'documents', 'persistence', 'storage'],
  'agent-management': ['config', 'contracts', 'egress', 'persistence'],
  agent: ['config', 'contracts', 'documents', 'egress', 'observability', 'persistence', 'run-events'],
  knowledge: ['agent', 'config', 'contracts', 'documents', 'files', 'persistence', 'storage'],
  memory: ['agent', 'contracts', 'identity', 'persistence'],
  skills: ['agent', 'contracts', 'documents', 'persistence'],
  webhooks: ['config', 'contracts', 'egress', 'observability', 'persistence'],
  chat: ['config', 'contracts', 'files', 'identity', 'persistence', 'queues', 'run-events'],
  routines: ['chat', 'contracts', 'observability', 'persistence', 'queues'],
  startup: ['config', 'persistence', 'redis'],
};

const libBoundaries = Object.entries(LIB_IMPORTS).map(([lib, allowed]) => ({
  files: [`libs/${lib}/src/**/*.ts`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          { group: ['**/apps/**'], message: 'A lib never imports an app.' },
          ...Object.keys(LIB_IMPORTS)
            .filter((other) => !allowed.includes(other))
            .map((other) => ({
              group: [`@app/${other}`, `@app/${other}/*`],
              message:
                other === lib
                  ? 'Import this lib from inside by relative path, not through its alias.'
                  : `libs/${lib} may import only: ${allowed.join(', ') || 'no other lib'} (LIB_IMPORTS in eslint.config.mjs).`,
            })),
        ],
      },
    ],
  },
}));

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      '**/dist/**',
      'coverage/**',
      'eslint.config.mjs',
      'jest.config.js',
      'jest.chaos.config.js',
    ],
  },
  eslint.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read settings through libs/config (Settings), not process.env.',
        },
      ],
    },
  },
  {
    files: [
      'libs/config/src/**/*.ts',
      'libs/persistence/src/cli-data-source.ts',
      'test/**/*.ts',
      'bench/**/*.ts',
      'apps/local/src/**/*.ts',
      'scripts/**/*.mjs',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
  {
    files: ['test/**/*.ts', '**/*.spec.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  ...libBoundaries,
);
