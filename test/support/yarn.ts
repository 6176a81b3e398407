import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';

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
