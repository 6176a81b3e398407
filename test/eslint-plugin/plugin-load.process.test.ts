import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { measurePluginImport } from '../../bench/eslint-plugin-import.js';
import { builtPackage } from '../support/built-package.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

const REPO = join(import.meta.dirname, '../..');

describe('loading the plugin for syntactic lint', () => {
  it('pulls in neither the TypeScript compiler nor ts-morph, nor ESLint classes beyond a few helpers', () => {
    const loaded = measurePluginImport(
      {
        eslint: join(REPO, 'node_modules/eslint/lib/api.js'),
        plugin: join(builtPackage('eslint-plugin'), 'dist/eslint-plugin/index.js'),
      },
      temporaryDirectory('plugin-load'),
      1,
    );
    expect(loaded.compilerFiles).toEqual([]);
    // typescript-eslint's ts-eslint entry alone adds ~200 modules (ESLint's classes, the scope manager).
    expect(loaded.modules).toBeLessThan(60);
  }, 180_000);
});
