import { dirname, resolve } from 'node:path';
import { PACKAGE_NAME } from './import-plan.js';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*|\bexport\s*\*\s*from\s*)(['"])([^'"\r\n]+)\1/g;
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts'];

/**
 * The files that can reach `checkpoint-fencing`: those that name it, and those that import (transitively) one that
 * does, e.g. through a local barrel. Only these need a type-aware parse; everything else is a cheap text scan.
 * `resolveBare` resolves a non-relative specifier (a tsconfig `paths` alias) to a project file.
 */
export function filesReachingPackage(
  texts: ReadonlyMap<string, string>,
  resolveBare: (specifier: string, containingFile: string) => string | undefined,
): string[] {
  const importers = new Map<string, string[]>();
  const reaching = new Set<string>();
  for (const [path, text] of texts) {
    if (text.includes(PACKAGE_NAME)) {
      reaching.add(path);
    }
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[2] ?? '';
      if (specifier === PACKAGE_NAME || specifier.startsWith('node:')) {
        continue;
      }
      const target = specifier.startsWith('.') ? resolveRelative(specifier, path, texts) : resolveBare(specifier, path);
      if (target !== undefined && texts.has(target)) {
        importers.set(target, [...(importers.get(target) ?? []), path]);
      }
    }
  }
  const pending = [...reaching];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const importer of importers.get(next) ?? []) {
      if (!reaching.has(importer)) {
        reaching.add(importer);
        pending.push(importer);
      }
    }
  }
  return [...texts.keys()].filter((path) => reaching.has(path));
}

function resolveRelative(specifier: string, from: string, texts: ReadonlyMap<string, string>): string | undefined {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(?:[mc]?js|jsx)$/, '');
  const candidates = [base, ...SOURCE_EXTENSIONS.map((extension) => stem + extension), ...SOURCE_EXTENSIONS.map((extension) => `${base}/index${extension}`)];
  return candidates.find((candidate) => texts.has(candidate));
}
