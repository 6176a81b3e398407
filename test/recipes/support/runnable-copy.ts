import { cpSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from './fixture-project.js';
import { temporaryDirectory } from '../../support/temporary-directory.js';

/**
 * Copies `source` (a file or folder) into a fresh temp folder with every `'checkpoint-fencing'` import pointed at
 * this repo's runtime source, so vitest can import the code and share one runtime (and one
 * `UnsupportedWriteConditionError` class) with the test. Returns the copy's path.
 */
export function runnableCopy(source: string): string {
  const root = temporaryDirectory('runnable');
  const target = join(root, source.split('/').at(-1) ?? 'copy');
  cpSync(source, target, { recursive: true });
  const rewrite = (path: string): void => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path)) {
        rewrite(join(path, entry));
      }
    } else if (/\.[mc]?[jt]sx?$/.test(path)) {
      const text = readFileSync(path, 'utf8');
      writeFileSync(path, text.replace(/(['"])checkpoint-fencing\1/g, JSON.stringify(join(REPO, 'runtime/index.ts'))));
    }
  };
  rewrite(target);
  return target;
}
