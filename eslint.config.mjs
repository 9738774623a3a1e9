// @ts-check
import eslint from '@eslint/js';
import tseslint from 'typescript-eslint';

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
);
