// @ts-check
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

// The repository lints itself with its own plugin as users get it: built into dist/ (`npm run lint` builds first).
const checkpointFencing = await loadBuiltEslintPlugin();

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'fixtures/', '.tmp/'] },
  eslint.configs.recommended,
  tseslint.configs.strictTypeChecked,
  checkpointFencing.configs.recommended,
  {
    // The package's own storages and stores are linted with types, which see through the relative imports a syntactic
    // rule cannot follow. The tests keep deliberately broken ones for the conformance kits to fail, so they stay on
    // the syntactic config, where only an import from 'checkpoint-fencing' makes a storage.
    ...checkpointFencing.configs['recommended-type-checked'],
    ignores: ['test/**'],
  },
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['*.js', '*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    rules: {
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allow: [{ from: 'lib', name: 'BigInt' }] },
      ],
      // Storage methods are async without awaiting so that a TypeError from argument checks becomes a rejection,
      // never a synchronous throw from a Promise-returning method.
      '@typescript-eslint/require-await': 'off',
    },
  },
);

async function loadBuiltEslintPlugin() {
  try {
    return (await import('./dist/eslint-plugin/index.js')).default;
  } catch (error) {
    throw new Error(
      `eslint.config.js: the checkpoint-fencing plugin at dist/eslint-plugin/index.js could not be loaded (${String(error)}). ` +
        'Run `npm run build` first; `npm run lint` does that for you.',
      { cause: error },
    );
  }
}
