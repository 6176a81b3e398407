import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packedTarball } from '../support/packed-tarball.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

const run = promisify(execFile);

/** A user's project with the package installed from its tarball, as `npm install` left it. */
export interface ConsumerProject {
  readonly directory: string;
  /** What `npm install` printed, stdout and stderr. */
  readonly installOutput: string;
}

/** What a consumer project declares besides the package: its module type and its pinned packages. */
export interface ConsumerSetup {
  readonly type?: 'module' | 'commonjs';
  /** Packages installed from the registry with the tarball, at exact versions, as `devDependencies`. */
  readonly devDependencies?: Readonly<Record<string, string>>;
  /** The workspace packages installed from their tarballs, by name; the runtime, `checkpoint-fencing`, by default. */
  readonly packages?: readonly string[];
}

/**
 * Creates a user's npm project declaring `setup` and this run's packed tarballs, in a temporary directory named after
 * `name` and removed after the test file, and runs one plain `npm install` there (no `--legacy-peer-deps`, no
 * `--force`): what a user gets, peer-range conflicts included, which reject.
 */
export async function installConsumer(name: string, setup: ConsumerSetup = {}): Promise<ConsumerProject> {
  const directory = temporaryDirectory(`consumer-${name}`);
  await writeFile(
    join(directory, 'package.json'),
    JSON.stringify(
      {
        name: 'consumer',
        private: true,
        ...(setup.type === undefined ? {} : { type: setup.type }),
        dependencies: Object.fromEntries(
          (setup.packages ?? ['checkpoint-fencing']).map((name) => [name, `file:${packedTarball(name).file}`]),
        ),
        devDependencies: setup.devDependencies ?? {},
      },
      null,
      2,
    ),
  );
  const install = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], {
    cwd: directory,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((error: unknown) => {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`npm install failed in ${directory}:\n${stdout ?? ''}${stderr ?? ''}`);
  });
  return { directory, installOutput: `${install.stdout}${install.stderr}` };
}
