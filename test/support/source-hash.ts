import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * A short hash of the files and folders `inputs` (relative to `root`), their paths and contents: what a cached build
 * is keyed by, so a change to any of them means a new build. Missing inputs count as empty.
 */
export function hashOfSources(root: string, inputs: readonly string[]): string {
  const hash = createHash('sha256');
  for (const input of inputs) {
    hashInto(hash, join(root, input));
  }
  return hash.digest('hex').slice(0, 16);
}

function hashInto(hash: ReturnType<typeof createHash>, path: string): void {
  if (!existsSync(path)) {
    return;
  }
  if (statSync(path).isDirectory()) {
    for (const entry of readdirSync(path).sort()) {
      hashInto(hash, join(path, entry));
    }
    return;
  }
  hash.update(path).update(readFileSync(path));
}
