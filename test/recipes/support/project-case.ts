import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { builtPackage } from '../../support/built-package.js';
import { temporaryDirectory } from '../../support/temporary-directory.js';
import { RECIPE_FIXTURES, REPO } from './fixture-project.js';

/** How a project case's storages are made: a class constructed without arguments, or a factory called without. */
export interface CaseStorage {
  readonly module: string;
  readonly class?: string;
  readonly factory?: string;
}

/** `<case>/case.json` of a project case: a whole project in `input/`, what the upgrade makes of it in `output/`. */
export interface ProjectCase {
  readonly name: string;
  readonly description: string;
  readonly storages: readonly CaseStorage[];
  /** Type-check with `tsc -b` (a solution-style tsconfig of composite projects) instead of `tsc -p`. */
  readonly build?: boolean;
  /** The projects to build with `tsc -b`, in order, where the root has no tsconfig (a workspace of packages). */
  readonly projects?: readonly string[];
  /** Packages of this checkout's node_modules the project has installed (a Prettier or Biome it formats with). */
  readonly link?: readonly string[];
  /** Folders of `input/` that are workspace packages, linked into node_modules under their names as npm does. */
  readonly workspaces?: readonly string[];
  /** A module the project compiles to, loaded with `require` after the type-check emitted it. */
  readonly compiled?: { readonly module: string; readonly class: string };
}

/** The project cases: fixture folders whose `input` is a folder rather than a file. */
export function projectCases(): ProjectCase[] {
  return readdirSync(RECIPE_FIXTURES)
    .filter(
      (name) =>
        existsSync(join(RECIPE_FIXTURES, name, 'input')) &&
        statSync(join(RECIPE_FIXTURES, name, 'input')).isDirectory(),
    )
    .sort()
    .map((name) => ({
      name,
      ...(JSON.parse(readFileSync(join(RECIPE_FIXTURES, name, 'case.json'), 'utf8')) as Omit<ProjectCase, 'name'>),
    }));
}

/**
 * A copy of the case's `input/` in a fresh temporary folder (outside this repository, whose Prettier configuration
 * must not apply), with `checkpoint-fencing` installed as the package it publishes and the case's other packages
 * linked from this checkout.
 */
export function copyProjectCase(projectCase: ProjectCase, options: { link?: boolean } = {}): string {
  const root = temporaryDirectory(projectCase.name);
  cpSync(join(RECIPE_FIXTURES, projectCase.name, 'input'), root, { recursive: true });
  mkdirSync(join(root, 'node_modules'), { recursive: true });
  symlinkSync(builtPackage('runtime'), join(root, 'node_modules/checkpoint-fencing'), 'dir');
  for (const name of options.link === false ? [] : (projectCase.link ?? [])) {
    mkdirSync(dirname(join(root, 'node_modules', name)), { recursive: true });
    symlinkSync(join(REPO, 'node_modules', name), join(root, 'node_modules', name), 'dir');
  }
  for (const folder of projectCase.workspaces ?? []) {
    const { name } = JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')) as { name: string };
    mkdirSync(dirname(join(root, 'node_modules', name)), { recursive: true });
    symlinkSync(join(root, folder), join(root, 'node_modules', name), 'dir');
  }
  return root;
}

/** Every file under `root` except installed packages and build output, by path relative to `root`. */
export function projectFiles(root: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') {
          walk(path);
        }
      } else if (!entry.name.endsWith('.tsbuildinfo')) {
        files.set(relative(root, path).split('\\').join('/'), readFileSync(path));
      }
    }
  };
  walk(root);
  return files;
}
