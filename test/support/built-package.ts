import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { withFileLock } from './file-lock.js';
import { hashOfSources } from './source-hash.js';

const REPO = resolve(import.meta.dirname, '../..');
/** What the published packages are built from; a change to any of it means a new build. */
const INPUTS = [
  'package.json',
  'tsconfig.base.json',
  'runtime',
  'operator',
  'vocabulary',
  'recipes',
  'eslint-plugin',
  'build',
  'doc/rules',
];

/**
 * A workspace package folder: `runtime` (checkpoint-fencing), `operator` (checkpoint-fencing-cli), `eslint-plugin` or
 * `recipes` (the codemod).
 */
export type PackageFolder = 'runtime' | 'operator' | 'eslint-plugin' | 'recipes';

/**
 * One workspace package as it installs from npm: its package.json and a dist/ built from the current sources by
 * `build/build-package.mjs`, in `.tmp/package-<folder>-<hash of the sources>/`. Built once and reused by every test
 * file that links it; its own dependencies resolve from this checkout's node_modules. Building here, instead of
 * relying on dist/, means the tests always see the code under test. The operator is built against the runtime built so,
 * and finds it in its own node_modules/, as it would installed.
 */
export function builtPackage(folder: PackageFolder = 'runtime'): string {
  const target = join(REPO, '.tmp', `package-${folder}-${hashOfSources(REPO, INPUTS)}`);
  if (!existsSync(join(target, 'package.json'))) {
    mkdirSync(join(REPO, '.tmp'), { recursive: true });
    // Test files that start at once would each build the same sources: one builds, the others wait for its build.
    withFileLock(`${target}.lock`, () => {
      if (!existsSync(join(target, 'package.json'))) {
        build(folder, target);
      }
    });
  }
  return target;
}

/** Builds the package in `folder` into a staging folder and moves it to `target`. */
function build(folder: PackageFolder, target: string): void {
  const runtime = folder === 'operator' ? builtPackage('runtime') : undefined;
  const staging = mkdtempSync(join(REPO, '.tmp', 'package-build-'));
  execFileSync(
    process.execPath,
    [join(REPO, 'build/build-package.mjs'), folder, '--into', staging, ...(runtime ? ['--runtime', runtime] : [])],
    { stdio: 'pipe' },
  );
  if (runtime !== undefined) {
    mkdirSync(join(staging, 'node_modules'));
    symlinkSync(runtime, join(staging, 'node_modules/checkpoint-fencing'), 'dir');
  }
  removeStaleBuilds(target);
  try {
    renameSync(staging, target);
  } catch (error) {
    // Another test file built the same sources at the same time; its copy is as good as this one.
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(join(target, 'package.json'))) {
      throw error;
    }
  }
}

/** Builds of sources that have since changed, left by earlier runs; an hour old at least, so no running test uses one. */
function removeStaleBuilds(keep: string): void {
  const folder = join(REPO, '.tmp');
  for (const entry of readdirSync(folder)) {
    const path = join(folder, entry);
    if (
      /^package-(?:runtime|operator|eslint-plugin|recipes)-[0-9a-f]{16}$/.test(entry) &&
      path !== keep &&
      Date.now() - statSync(path).mtimeMs > 60 * 60 * 1000
    ) {
      rmSync(path, { recursive: true, force: true });
    }
  }
}
