import { basename, dirname, resolve } from 'node:path';
import { PACKAGE_NAME } from '../../vocabulary/index.js';

const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(['"])([^'"\r\n]+)\1/g;
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'];

/**
 * The files that can reach `checkpoint-fencing`: those that name it, and those that import (transitively) one that
 * does, e.g. through a local barrel. Only these need a type-aware parse; everything else is a cheap text scan.
 * `resolveBare` resolves a non-relative specifier (a tsconfig `paths` alias) to a project file.
 */
export function filesReachingPackage(
  texts: ReadonlyMap<string, string>,
  resolveBare: (specifier: string, containingFile: string) => string | undefined,
): string[] {
  // Index every import by the last segment of its specifier, so that finding the importers of a file resolves only
  // the specifiers that could name it instead of every import in the project.
  const bySegment = new Map<string, { file: string; specifier: string }[]>();
  // Bare specifiers can only name a project file through a `paths` alias; resolve each once, up front.
  const bareImporters = new Map<string, string[]>();
  const reaching = new Set<string>();
  for (const [file, text] of texts) {
    if (text.includes(PACKAGE_NAME)) {
      reaching.add(file);
    }
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[2] ?? '';
      if (specifier === PACKAGE_NAME || specifier.startsWith('node:')) {
        continue;
      }
      if (!specifier.startsWith('.')) {
        const resolved = resolveBare(specifier, file);
        if (resolved !== undefined) {
          bareImporters.set(resolved, [...(bareImporters.get(resolved) ?? []), file]);
        }
        continue;
      }
      const segment = stem(basename(specifier));
      const entries = bySegment.get(segment);
      if (entries === undefined) {
        bySegment.set(segment, [{ file, specifier }]);
      } else {
        entries.push({ file, specifier });
      }
    }
  }
  const pending = [...reaching];
  for (let target = pending.pop(); target !== undefined; target = pending.pop()) {
    const own = stem(basename(target));
    const candidates = [
      ...(bySegment.get(own) ?? []),
      ...(own === 'index' ? (bySegment.get(basename(dirname(target))) ?? []) : []),
    ];
    const importers = [
      ...candidates
        .filter(({ file, specifier }) => !reaching.has(file) && resolveRelative(specifier, file, texts) === target)
        .map(({ file }) => file),
      ...(bareImporters.get(target) ?? []),
    ];
    for (const file of importers) {
      if (!reaching.has(file)) {
        reaching.add(file);
        pending.push(file);
      }
    }
  }
  return [...texts.keys()].filter((file) => reaching.has(file));
}

function stem(name: string): string {
  return name.replace(/\.(?:d\.)?(?:[mc]?[jt]sx?)$/, '');
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
