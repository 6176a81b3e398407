import { dirname, resolve } from 'node:path';
import { nearestManifestField } from './nearest-manifest.js';

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
