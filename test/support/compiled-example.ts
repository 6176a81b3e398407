import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repository = resolve(import.meta.dirname, '../..');

/** An example compiled from the current sources, and the way to remove it. */
export interface CompiledExample {
  /** The output directory: `<directory>/examples/<name>/…js`. */
  readonly directory: string;
  remove(): void;
}

/**
 * Compiles the example `name` (its `examples/<name>/tsconfig.json`) into a fresh directory under the repository's
 * .tmp/, so that the processes an example spawns run the current sources (their imports resolve from the
 * repository's node_modules), never a dist/ that may be stale.
 */
export function compiledExample(name: string): CompiledExample {
  mkdirSync(join(repository, '.tmp'), { recursive: true });
  const directory = mkdtempSync(join(repository, '.tmp', `${name}-`));
  execFileSync(process.execPath, [
    join(repository, 'node_modules/typescript/bin/tsc'),
    '-p',
    join(repository, `examples/${name}/tsconfig.json`),
    '--outDir',
    directory,
  ]);
  return {
    directory,
    remove: () => {
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
