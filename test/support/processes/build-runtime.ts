import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repository = resolve(import.meta.dirname, '../../..');

/** A compiled copy of runtime/ for child processes, and the way to remove it. */
export interface BuiltRuntime {
  /** The directory holding `runtime/index.js`; scripts written here import `./runtime/index.js`. */
  readonly directory: string;
  remove(): void;
}

/**
 * Compiles runtime/ into a fresh directory under the repository's `.tmp/` (so that ioredis resolves from the
 * repository's node_modules), so a spawned process runs the code under test, never a stale dist/.
 */
export function buildRuntime(): BuiltRuntime {
  mkdirSync(join(repository, '.tmp'), { recursive: true });
  const directory = mkdtempSync(join(repository, '.tmp', 'runtime-build-'));
  writeFileSync(
    join(directory, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../tsconfig.base.json',
      compilerOptions: { rootDir: '../..', outDir: '.', noEmit: false, declaration: false, sourceMap: false },
      include: ['../../runtime'],
      exclude: ['../../runtime/testing'],
    }),
  );
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ type: 'module' }));
  execFileSync(process.execPath, [join(repository, 'node_modules/typescript/bin/tsc'), '-p', directory], {
    stdio: 'pipe',
  });
  return {
    directory,
    remove: () => {
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
