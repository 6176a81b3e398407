import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { packedTarball } from './packed-tarball.js';
import { temporaryDirectory } from './temporary-directory.js';

const run = promisify(execFile);
const REPO = resolve(import.meta.dirname, '../..');
/** Yarn 4, this checkout's `@yarnpkg/cli-dist` devDependency. */
const YARN = join(REPO, 'node_modules/@yarnpkg/cli-dist/bin/yarn.js');

/**
 * Runs Yarn 4 with `args` in `root` and returns its stdout. It fetches from the npm registry only, into a cache this
 * checkout keeps between runs. Yarn makes installs immutable when it sees `CI` set, and a test project has no lockfile
 * to keep, so this allows one.
 */
export async function yarn(root: string, ...args: string[]): Promise<string> {
  const env = {
    ...process.env,
    YARN_ENABLE_GLOBAL_CACHE: 'false',
    YARN_CACHE_FOLDER: join(REPO, '.tmp/yarn-cache'),
    YARN_NPM_REGISTRY_SERVER: 'https://registry.npmjs.org',
    YARN_ENABLE_TELEMETRY: '0',
    YARN_ENABLE_IMMUTABLE_INSTALLS: 'false',
  };
  return (await run(process.execPath, [YARN, ...args], { cwd: root, env })).stdout;
}

/** This checkout's pinned version of `name`, one of its devDependencies (`typescript`, `@typescript-eslint/parser`). */
export function checkoutVersion(name: string): string {
  const manifest = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
    devDependencies: Record<string, string>;
  };
  const version = manifest.devDependencies[name];
  if (version === undefined) {
    throw new Error(`${name} is no devDependency of this checkout; add it to the root package.json or pin a version.`);
  }
  return version;
}

/**
 * A user's ES module project installed by Yarn 4 with Plug'n'Play, in a temporary directory named after `name`: the
 * runtime's tarball as a dependency, the other workspace packages named in `packages` from their tarballs and
 * `devDependencies` from the registry as dev dependencies. Returns its directory.
 */
export async function yarnProject(
  name: string,
  setup: { readonly packages?: readonly string[]; readonly devDependencies?: Readonly<Record<string, string>> },
): Promise<string> {
  const root = temporaryDirectory(name);
  const tarballs = (setup.packages ?? []).map((name): [string, string] => [name, `file:${packedTarball(name).file}`]);
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({
      name: 'orders-projector',
      private: true,
      type: 'module',
      dependencies: { 'checkpoint-fencing': `file:${packedTarball().file}` },
      devDependencies: { ...Object.fromEntries(tarballs), ...setup.devDependencies },
    }),
  );
  await yarn(root, 'install');
  return root;
}
