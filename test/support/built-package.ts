import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { withFileLock } from './file-lock.js';
import { hashOfSources } from './source-hash.js';

const REPO = resolve(import.meta.dirname, '../..');
/** What the published package is built from; a change to any of it means a new build. */
const INPUTS = [
  'package.json',
  'tsconfig.base.json',
  'runtime',
  'vocabulary',
  'recipes',
  'operator',
  'eslint-plugin',
  'build',
];

/**
 * This checkout as it installs from npm: package.json, README, doc/ and a dist/ built from the current sources (tsc
 * and the `.d.cts` twins), in `.tmp/package-<hash of the sources>/`. Built once and reused by every test file that
 * links it as `node_modules/checkpoint-fencing`; its own dependencies resolve from this checkout's node_modules.
 * Building here, instead of relying on dist/, means the tests always see the code under test.
 */
export function builtPackage(): string {
  const target = join(REPO, '.tmp', `package-${hashOfSources(REPO, INPUTS)}`);
  if (existsSync(join(target, 'package.json'))) {
    return target;
  }
  mkdirSync(join(REPO, '.tmp'), { recursive: true });
  // Test files that start at once would each build the same sources: one builds, the others wait for its build.
  withFileLock(`${target}.lock`, () => {
    if (!existsSync(join(target, 'package.json'))) {
      build(target);
    }
  });
  return target;
}

/** Builds the package into a staging folder and moves it to `target`. */
function build(target: string): void {
  const staging = mkdtempSync(join(REPO, '.tmp', 'package-build-'));
  writeFileSync(
    join(staging, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../tsconfig.base.json',
      compilerOptions: { rootDir: '../..', outDir: 'dist', declaration: true, sourceMap: false },
      include: [
        '../../runtime',
        '../../vocabulary',
        '../../recipes',
        '../../operator',
        '../../eslint-plugin',
        '../../build',
      ],
    }),
  );
  execFileSync(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', staging], { stdio: 'pipe' });
  execFileSync(process.execPath, [join(staging, 'dist/build/emit-commonjs-declarations.js')], { stdio: 'pipe' });
  rmSync(join(staging, 'tsconfig.json'));
  for (const file of ['package.json', 'README.md', 'doc']) {
    cpSync(join(REPO, file), join(staging, file), { recursive: true });
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
    if (/^package-[0-9a-f]{16}$/.test(entry) && path !== keep && Date.now() - statSync(path).mtimeMs > 60 * 60 * 1000) {
      rmSync(path, { recursive: true, force: true });
    }
  }
}
