import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * A top-level field of the nearest package.json at or above `folder` (the package a file in `folder` belongs to):
 * its value when it is a string, else `undefined`, as also when there is no package.json or it does not parse.
 */
export function nearestManifestField(folder: string, field: 'name' | 'type'): string | undefined {
  for (let current = folder; ; current = dirname(current)) {
    const path = join(current, 'package.json');
    if (existsSync(path)) {
      try {
        const value = (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>)[field];
        return typeof value === 'string' ? value : undefined;
      } catch {
        return undefined;
      }
    }
    if (dirname(current) === current) {
      return undefined;
    }
  }
}

const byFolder = new Map<string, string | undefined>();

/**
 * The `"type"` of the package a file belongs to (the nearest package.json above it): `module`, `commonjs`, or
 * `undefined` when it says nothing (which Node reads as CommonJS). Read once per folder.
 */
export function packageType(file: string): string | undefined {
  const folder = dirname(resolve(file));
  if (!byFolder.has(folder)) {
    byFolder.set(folder, nearestManifestField(folder, 'type'));
  }
  return byFolder.get(folder);
}
