import { existsSync } from 'node:fs';
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
  // readConfigFile does not throw; Object() makes a manifest that does not parse, or is not an object, have no fields.
  const { config } = ts.readConfigFile(path, (file) => ts.sys.readFile(file)) as { config?: unknown };
  return { folder: dirname(path), fields: Object(config) as Record<string, unknown> };
}

/** A string field of the nearest package.json at or above `folder`; `undefined` when it is not a string or absent. */
export function nearestManifestField(folder: string, field: 'name' | 'type'): string | undefined {
  const value = nearestManifest(folder)?.fields[field];
  return typeof value === 'string' ? value : undefined;
}
