// @ts-check
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'fixtures/', '.tmp/'] },
  eslint.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['*.js', '*.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    rules: {
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allow: [{ from: 'lib', name: 'BigInt' }] }],
      // Storage methods are async without awaiting so that a TypeError from argument checks becomes a rejection,
      // never a synchronous throw from a Promise-returning method.
      '@typescript-eslint/require-await': 'off',
    },
  },
);
