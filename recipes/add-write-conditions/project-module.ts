import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const loaded = new Map<string, Promise<unknown>>();

/**
 * The module `name` as code in `file` imports it: the project's own copy of an optional peer (Prettier, ESLint), never
 * one of ours, loaded once per process; `undefined` when none resolves from there.
 */
export function importProjectModule(file: string, name: string): Promise<unknown> | undefined {
  let entry: string;
  try {
    entry = createRequire(join(dirname(file), 'noop.js')).resolve(name);
  } catch {
    return undefined;
  }
  const module = loaded.get(entry) ?? import(pathToFileURL(entry).href);
  loaded.set(entry, module);
  return module;
}
