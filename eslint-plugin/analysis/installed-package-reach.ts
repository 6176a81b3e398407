import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, isAbsolute, join } from 'node:path';
import { PACKAGE_NAME } from '../../vocabulary/index.js';
import { remember } from './remembered-answer.js';

/**
 * Whether what a file imports from `specifier` cannot lead to checkpoint-fencing: a Node built-in module, or a
 * package installed under `node_modules` that is not checkpoint-fencing and depends on it nowhere, following its
 * dependencies, peer and optional dependencies through theirs. A relative import, a package linked from the workspace
 * (whose files may import what only the workspace root installs), or a name no installed package answers to (a
 * `paths` alias, an ambient module) may lead anywhere. Spares the checker resolving such an import (ADR 0311).
 */
export function importCannotReachPackage(specifier: string, importingFile: string): boolean {
  if (isBuiltin(specifier)) {
    return true;
  }
  if (specifier.startsWith('.') || isAbsolute(specifier)) {
    return false;
  }
  const found = installedPackage(packageName(specifier), dirname(importingFile));
  return found !== undefined && !found.linked && !mayDependOnPackage(found.folder);
}

/**
 * Whether a file of a package installed under `node_modules` cannot lead to checkpoint-fencing: its package is not
 * checkpoint-fencing and depends on it nowhere ({@link importCannotReachPackage}). A file outside `node_modules` may.
 */
export function installedFileCannotReachPackage(file: string): boolean {
  const installed = /^(.*[\\/]node_modules[\\/](?:@[^\\/]+[\\/])?[^\\/]+)[\\/]/u.exec(file);
  return installed?.[1] !== undefined && !mayDependOnPackage(installed[1]);
}

interface InstalledPackage {
  /** The package's folder, symbolic links resolved. */
  readonly folder: string;
  /** Its folder is outside every `node_modules`: a workspace package, linked. */
  readonly linked: boolean;
}

/** `@scope/name` or `name`, without a subpath. */
function packageName(specifier: string): string {
  return specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
}

const installedByQuestion = new Map<string, InstalledPackage | null>();

/** The package `name` as Node resolves it from `folder`: the nearest `node_modules/<name>` at or above it. */
function installedPackage(name: string, folder: string): InstalledPackage | undefined {
  const question = `${folder}\0${name}`;
  const known = installedByQuestion.get(question);
  if (known !== undefined) {
    return known ?? undefined;
  }
  const candidate = join(folder, 'node_modules', name);
  let found: InstalledPackage | undefined;
  if (existsSync(join(candidate, 'package.json'))) {
    const real = realpathSync(candidate);
    found = { folder: real, linked: !/[\\/]node_modules[\\/]/u.test(real) };
  } else if (dirname(folder) !== folder) {
    found = installedPackage(name, dirname(folder));
  }
  installedByQuestion.set(question, found ?? null);
  return found;
}

const dependsByFolder = new Map<string, boolean>();

/**
 * Whether the package in `folder` is checkpoint-fencing or may import it, itself or through what it depends on: a
 * dependency names it, is linked from the workspace, or has no manifest to say.
 */
function mayDependOnPackage(folder: string): boolean {
  const known = dependsByFolder.get(folder);
  if (known !== undefined) {
    return known;
  }
  const reached = new Set([folder]);
  for (const current of reached) {
    const dependencies = dependenciesOf(current);
    if (dependencies === 'may-be-the-package' || dependencies.includes(PACKAGE_NAME)) {
      return remember(dependsByFolder, folder, true);
    }
    for (const dependency of dependencies) {
      const found = installedPackage(dependency, current);
      if (found?.linked === true) {
        return remember(dependsByFolder, folder, true);
      }
      if (found !== undefined) {
        reached.add(found.folder);
      }
    }
  }
  return remember(dependsByFolder, folder, false);
}

const dependenciesByFolder = new Map<string, readonly string[] | 'may-be-the-package'>();

/** What the package in `folder` may import at run time or in its types: its dependencies, peer and optional ones. */
function dependenciesOf(folder: string): readonly string[] | 'may-be-the-package' {
  const known = dependenciesByFolder.get(folder);
  if (known !== undefined) {
    return known;
  }
  const file = join(folder, 'package.json');
  const manifest = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PackageManifest) : undefined;
  const dependencies =
    manifest === undefined || manifest.name === PACKAGE_NAME
      ? 'may-be-the-package'
      : Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies });
  return remember(dependenciesByFolder, folder, dependencies);
}

interface PackageManifest {
  readonly name?: string;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly optionalDependencies?: Readonly<Record<string, string>>;
}
