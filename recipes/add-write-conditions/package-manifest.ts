import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { ts } from './typescript.js';

/** The nearest package.json at or above `folder`: its folder and top-level fields (none when it does not parse). */
export function nearestManifest(
  folder: string,
): { folder: string; fields: Readonly<Record<string, unknown>> } | undefined {
  const path = ts.findConfigFile(folder, existsSync, 'package.json');
  if (path === undefined) {
    return undefined;
  }
  try {
    // Object() makes a manifest of `null` or a string a record without fields.
    return { folder: dirname(path), fields: Object(JSON.parse(readFileSync(path, 'utf8'))) as Record<string, unknown> };
  } catch {
    return { folder: dirname(path), fields: {} };
  }
}

/** A string field of the nearest package.json at or above `folder`; `undefined` when it is not a string or absent. */
export function nearestManifestField(folder: string, field: 'name' | 'type'): string | undefined {
  const value = nearestManifest(folder)?.fields[field];
  return typeof value === 'string' ? value : undefined;
}
