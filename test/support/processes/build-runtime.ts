import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { builtPackage } from '../built-package.js';

const repository = resolve(import.meta.dirname, '../../..');

/** A compiled copy of runtime/ for child processes, and the way to remove it. */
export interface BuiltRuntime {
  /** The directory holding `runtime/index.js`; scripts written here import `./runtime/index.js`. */
  readonly directory: string;
  remove(): void;
}

/**
 * A fresh directory under the repository's `.tmp/` (so that ioredis resolves from the repository's node_modules)
 * whose `runtime/` is the package built from the current sources ({@link builtPackage}, built once for every test
 * file that needs it), so a spawned process runs the code under test, never a stale dist/; or `compiled`, a compiled
 * runtime/ given (a benchmark run from dist/ gives its own).
 */
export function buildRuntime(compiled = join(builtPackage('runtime'), 'dist/cjs/runtime')): BuiltRuntime {
  mkdirSync(join(repository, '.tmp'), { recursive: true });
  const directory = mkdtempSync(join(repository, '.tmp', 'runtime-build-'));
  symlinkSync(compiled, join(directory, 'runtime'), 'dir');
  writeFileSync(join(directory, 'package.json'), JSON.stringify({ type: 'module' }));
  return {
    directory,
    remove: () => {
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
