// @ts-check
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { runnerImport } from 'vite';

// The repository lints itself with its own plugin, loaded from its TypeScript sources through Vite's module runner
// (the one vitest uses), so that a fresh clone lints, and tests its lint config, with nothing built first.
const checkpointFencing = await loadEslintPluginSources();

export default defineConfig(
  { ignores: ['**/dist/', 'node_modules/', 'coverage/', 'fixtures/', '.tmp/'] },
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
        projectService: { allowDefaultProject: ['*.js', '*.mjs', 'build/*.mjs'] },
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

/** @returns {Promise<import('./eslint-plugin/plugin-types.js').CheckpointFencingPlugin>} */
async function loadEslintPluginSources() {
  /** @type {{ module: { default: import('./eslint-plugin/plugin-types.js').CheckpointFencingPlugin } }} */
  const loaded = await runnerImport('./eslint-plugin/index.ts', {
    root: import.meta.dirname,
    configFile: false,
    logLevel: 'silent',
  });
  return loaded.module.default;
}
