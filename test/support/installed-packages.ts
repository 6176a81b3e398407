import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { withFileLock } from './file-lock.js';

const REPO = resolve(import.meta.dirname, '../..');

/**
 * A folder whose `node_modules` holds `packages` (name → exact version) and their dependencies, as `npm install` from
 * the registry leaves them in a user's project. Installed once per set of versions, in
 * `.tmp/installs/<hash of the set>/`, and kept across runs: the same versions install the same thing. Test files that
 * ask for the same set at once wait for one install under a file lock. Install scripts do not run.
 */
export function installedPackages(packages: Readonly<Record<string, string>>): string {
  const sorted = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b)));
  const key = createHash('sha256').update(JSON.stringify(sorted)).digest('hex').slice(0, 16);
  const folder = join(REPO, '.tmp', 'installs', key);
  if (!existsSync(folder)) {
    mkdirSync(join(REPO, '.tmp', 'installs'), { recursive: true });
    withFileLock(`${folder}.lock`, () => {
      if (!existsSync(folder)) {
        install(sorted, folder);
      }
    });
  }
  return folder;
}

/** Installs into a staging folder and then moves it to `folder`, so that `folder` only ever holds a finished install. */
function install(packages: Readonly<Record<string, string>>, folder: string): void {
  const staging = `${folder}-staging`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  // Its own package.json, or npm would install into the nearest folder above that has one: this repository.
  writeFileSync(join(staging, 'package.json'), JSON.stringify({ private: true, devDependencies: packages }, null, 2));
  try {
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts'], {
      cwd: staging,
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(
      `npm install of ${JSON.stringify(packages)} failed in ${staging}:\n${stdout ?? ''}${stderr ?? ''}`,
      {
        cause: error,
      },
    );
  }
  renameSync(staging, folder);
}
