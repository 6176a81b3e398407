import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './fixture-project.js';

/**
 * Compiles recipes/ into a fresh directory under the repo's .tmp/ (so `ts-morph` and `diff` resolve from the repo's
 * node_modules) and returns it; the CLI is `<dir>/recipes/cli.js`. Building here, instead of relying on dist/, means
 * the spawned CLI is always the code under test.
 */
export function buildRecipes(): string {
  mkdirSync(join(REPO, '.tmp'), { recursive: true });
  const out = mkdtempSync(join(REPO, '.tmp', 'recipes-build-'));
  writeFileSync(
    join(out, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../tsconfig.base.json',
      compilerOptions: { rootDir: '../..', outDir: '.', noEmit: false, declaration: true, sourceMap: false },
      include: ['../../recipes'],
    }),
  );
  execFileSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', out], { stdio: 'pipe' });
  return out;
}
