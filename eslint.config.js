import { existsSync, readdirSync } from 'node:fs';

import js from '@eslint/js';
import jest from 'eslint-plugin-jest';
import tseslint from 'typescript-eslint';

// The domains: the folders of src/ with a module.ts (src/domains.ts lists them); the other folders
// of src/ are infrastructure (docs/decisions.md "One door per domain").
const DOMAINS = readdirSync(new URL('./src', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(new URL(`./src/${entry.name}/module.ts`, import.meta.url)))
  .map((entry) => entry.name);

/** An import of another domain's file other than its door (index.js), from anywhere in src/. */
export const DOOR_PATTERN = `^\\.{1,2}/(\\.\\./)*(${DOMAINS.join('|')})/(?!index\\.js$).+`;

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
  // One door per domain: a domain (and the infrastructure) reaches another domain only through its
  // index.ts. A domain's own files import each other by `./` paths, which the pattern leaves alone.
  // Exempt: src/domains.ts, which assembles the domains' modules, and the request context's
  // payment-processor port (graphql/context.ts, http/): through the payments' door, whose GraphQL
  // types import that context, it would close an import cycle.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/domains.ts', 'src/graphql/context.ts', 'src/http/endpoint.ts', 'src/http/app.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ regex: DOOR_PATTERN, message: "Another domain's files are private: import its door, ../<domain>/index.js (docs/decisions.md \"One door per domain\")." }] },
      ],
    },
  },
);
