import { dirname, resolve } from 'node:path';
import { PACKAGE_NAME } from '../../vocabulary/index.js';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])([^'"\r\n]+)\1/g;
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/**
 * The files that can reach `checkpoint-fencing`: those that name it, and those that import (transitively) one that
 * does. Only these need a type-aware parse. `resolveBare` resolves a bare specifier to a project file.
 */
export function filesReachingPackage(
  texts: ReadonlyMap<string, string>,
  resolveBare: (specifier: string, containingFile: string) => string | undefined,
): string[] {
  // Imports resolved without touching the disk (a relative one against the files read), by the file each names.
  const importers = new Map<string, string[]>();
  for (const [file, text] of texts) {
    for (const [, , specifier = ''] of text.matchAll(SPECIFIER)) {
      const bare = !specifier.startsWith('.');
      const skipped = specifier === PACKAGE_NAME || specifier.startsWith('node:');
      const target = skipped
        ? undefined
        : bare
          ? resolveBare(specifier, file)
          : resolveRelative(specifier, file, texts);
      if (target !== undefined) {
        importers.set(target, [...(importers.get(target) ?? []), file]);
      }
    }
  }
  const reaching = new Set([...texts].flatMap(([file, text]) => (text.includes(PACKAGE_NAME) ? [file] : [])));
  const pending = [...reaching];
  for (let target = pending.pop(); target !== undefined; target = pending.pop()) {
    for (const file of importers.get(target) ?? []) {
      if (!reaching.has(file)) {
        reaching.add(file);
        pending.push(file);
      }
    }
  }
  return [...texts.keys()].filter((file) => reaching.has(file));
}

function resolveRelative(specifier: string, from: string, texts: ReadonlyMap<string, string>): string | undefined {
  const base = resolve(dirname(from), specifier);
  const withoutExtension = base.replace(/\.(?:[mc]?js|jsx)$/, '');
  const candidates = [
    base,
    ...SOURCE_EXTENSIONS.map((extension) => withoutExtension + extension),
    ...SOURCE_EXTENSIONS.map((extension) => `${base}/index${extension}`),
  ];
  return candidates.find((candidate) => texts.has(candidate));
}
