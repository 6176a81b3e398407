import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

const byFolder = new Map<string, string | undefined>();

/**
 * The `"type"` of the package a file belongs to (the nearest package.json above it): `module`, `commonjs`, or
 * `undefined` when it says nothing (which Node reads as CommonJS). Read once per folder.
 */
export function packageType(file: string): string | undefined {
  const folder = dirname(resolve(file));
  if (!byFolder.has(folder)) {
    byFolder.set(folder, readPackageType(folder));
  }
  return byFolder.get(folder);
}

function readPackageType(start: string): string | undefined {
  for (let folder = start; ; folder = dirname(folder)) {
    const path = join(folder, 'package.json');
    if (existsSync(path)) {
      try {
        const type = (JSON.parse(readFileSync(path, 'utf8')) as { type?: unknown }).type;
        return typeof type === 'string' ? type : undefined;
      } catch {
        return undefined;
      }
    }
    if (dirname(folder) === folder) {
      return undefined;
    }
  }
}
