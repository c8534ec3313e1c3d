import js from '@eslint/js';
import jest from 'eslint-plugin-jest';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'src/generated/', 'test/generated/', 'sdk/dist/', 'sdk/src/generated/', '.data/', '.tmp/', 'dist/', 'dist.*/', 'coverage/', '.*'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  // Tests that can fail: no focused test that silently drops the others, no expect that may never
  // run (inside an `if`, a `catch`, outside a test), no expect without its matcher or its await, and
  // no promise left floating (a check that would run after its test ended, or never).
  {
    files: ['test/**/*.ts'],
    plugins: { jest },
    languageOptions: { globals: jest.environments.globals.globals, parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      'jest/no-focused-tests': 'error',
      'jest/no-conditional-expect': 'error',
      'jest/valid-expect': 'error',
      'jest/no-standalone-expect': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
    },
  },
);
