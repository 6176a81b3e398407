import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  locateBinary,
  provisionBinaries,
  ProvisioningError,
  testProject,
  testProjectOfFile,
  testProjects,
  testProjectsWithFiles,
  type CommandOutcome,
  type ProvisioningHost,
} from '../support/projects/index.js';
import { temporaryDirectory } from '../support/temporary-directory.js';

/** Files each Debian package puts on disk, for the fake apt-get. */
const packageFiles: Record<string, readonly string[]> = {
  'redis-server': ['/usr/bin/redis-server'],
  'redis-tools': ['/usr/bin/redis-cli'],
  postgresql: [
    '/usr/lib/postgresql/15/bin/initdb',
    '/usr/lib/postgresql/15/bin/pg_ctl',
    '/usr/lib/postgresql/15/bin/postgres',
    // From postgresql-client, which postgresql depends on.
    '/usr/lib/postgresql/15/bin/pg_basebackup',
  ],
  pgbouncer: ['/usr/sbin/pgbouncer'],
};

interface FakeHostOptions {
  readonly root?: boolean;
  readonly executables?: readonly string[];
  readonly path?: readonly string[];
  /** What each apt-get call answers; installs the packages named on an `install` line unless it fails. */
  readonly aptGet?: (args: readonly string[]) => CommandOutcome;
  /** Packages whose files apt-get "forgets" to put on disk. */
  readonly brokenPackages?: readonly string[];
}

/** A machine made of a set of executable paths, whose apt-get adds the files of the packages it installs. */
function fakeHost(options: FakeHostOptions = {}) {
  const executables = new Set(options.executables ?? ['/usr/bin/apt-get']);
  const runs: { command: string; args: readonly string[]; env: Readonly<Record<string, string>> }[] = [];
  const printed: string[] = [];
  const host: ProvisioningHost = {
    pathDirectories: options.path ?? ['/usr/local/bin', '/usr/bin', '/bin'],
    isRoot: options.root ?? true,
    isExecutable: (path) => executables.has(path),
    listDirectory: (path) => {
      const prefix = `${path}/`;
      return [
        ...new Set(
          [...executables]
            .filter((file) => file.startsWith(prefix))
            .map((file) => file.slice(prefix.length).split('/')[0] ?? ''),
        ),
      ];
    },
    run: (command, args, env) => {
      runs.push({ command, args, env });
      const outcome = options.aptGet?.(args) ?? { status: 0, output: '' };
      if (outcome.status === 0 && args[0] === 'install') {
        for (const name of args.filter((arg) => !arg.startsWith('-')).slice(1)) {
          if (!(options.brokenPackages ?? []).includes(name)) {
            for (const file of packageFiles[name] ?? []) {
              executables.add(file);
            }
          }
        }
      }
      return Promise.resolve(outcome);
    },
    print: (line) => printed.push(line),
  };
  return { host, runs, printed };
}

const cluster = testProject('cluster');
const redis = testProject('redis');
const postgres = testProject('postgres');

describe('provisionBinaries', () => {
  it('finds binaries already on PATH, and runs and prints nothing', async () => {
    const { host, runs, printed } = fakeHost({ executables: ['/usr/bin/redis-server', '/usr/local/bin/redis-cli'] });
    const located = await provisionBinaries([cluster], host);
    expect(Object.fromEntries(located)).toEqual({
      'redis-server': '/usr/bin/redis-server',
      'redis-cli': '/usr/local/bin/redis-cli',
    });
    expect(runs).toEqual([]);
    expect(printed).toEqual([]);
  });

  it('as root with apt-get: prints one line saying what and why, runs apt-get update and install, returns the paths', async () => {
    const { host, runs, printed } = fakeHost();
    const located = await provisionBinaries([redis, cluster], host);
    expect(printed).toEqual([
      'Installing redis-server and redis-tools with apt-get: redis-server and redis-cli are not installed, and the redis and cluster test projects need them.',
    ]);
    expect(runs).toEqual([
      { command: '/usr/bin/apt-get', args: ['update', '-qq'], env: { DEBIAN_FRONTEND: 'noninteractive' } },
      {
        command: '/usr/bin/apt-get',
        args: ['install', '-y', '-qq', '--no-install-recommends', 'redis-server', 'redis-tools'],
        env: { DEBIAN_FRONTEND: 'noninteractive' },
      },
    ]);
    expect(Object.fromEntries(located)).toEqual({
      'redis-server': '/usr/bin/redis-server',
      'redis-cli': '/usr/bin/redis-cli',
    });
  });

  it('installs only the packages of the missing binaries, and names only the projects that need them', async () => {
    const { host, runs, printed } = fakeHost({ executables: ['/usr/bin/apt-get', '/usr/bin/redis-server'] });
    await provisionBinaries([redis, cluster], host);
    expect(runs.at(-1)?.args).toEqual(['install', '-y', '-qq', '--no-install-recommends', 'redis-tools']);
    expect(printed).toEqual([
      'Installing redis-tools with apt-get: redis-cli is not installed, and the cluster test project needs it.',
    ]);
  });

  it('as a user other than root: fails at once with the exact command to run, and runs nothing', async () => {
    const { host, runs, printed } = fakeHost({ root: false });
    const failure = provisionBinaries([redis, cluster], host);
    await expect(failure).rejects.toThrow(ProvisioningError);
    await expect(failure).rejects.toThrow(
      'redis-server and redis-cli are not installed, and the redis and cluster test projects need them. ' +
        'The tests install missing packages only when they run as root. Install them, then run the tests again:\n\n' +
        '  sudo apt-get update && sudo apt-get install -y redis-server redis-tools\n',
    );
    expect(runs).toEqual([]);
    expect(printed).toEqual([]);
  });

  it('without apt-get, even as root: fails at once naming the binaries and the Debian command', async () => {
    const { host, runs } = fakeHost({ executables: [] });
    await expect(provisionBinaries([redis], host)).rejects.toThrow(
      'redis-server is not installed, and the redis test project needs it. This machine has no apt-get, so the tests ' +
        'cannot install it: install it with its package manager so that redis-server is on PATH (on Debian and ' +
        'Ubuntu: apt-get update && apt-get install -y redis-server), then run the tests again.',
    );
    expect(runs).toEqual([]);
  });

  it('reports a failed apt-get with the end of its output, and does not go on to install', async () => {
    const { host, runs } = fakeHost({
      aptGet: (args) =>
        args[0] === 'update'
          ? { status: 100, output: 'E: Could not get lock /var/lib/apt/lists/lock. It is held by process 4242' }
          : { status: 0, output: '' },
    });
    await expect(provisionBinaries([redis], host)).rejects.toThrow(
      /^apt-get update -qq failed \(exit status 100\) while installing redis-server because .*\n.*held by process 4242$/s,
    );
    expect(runs).toHaveLength(1);
  });

  it('fails when apt-get succeeded but the binary is still nowhere to be found', async () => {
    const { host } = fakeHost({ brokenPackages: ['redis-tools'] });
    await expect(provisionBinaries([cluster], host)).rejects.toThrow(
      'apt-get installed redis-tools, but redis-cli is still not found on PATH. Check `dpkg -L redis-tools` for where it went.',
    );
  });

  it('finds PostgreSQL in /usr/lib/postgresql/<major>/bin, newest major first, and pgbouncer in /usr/sbin, off PATH', async () => {
    const { host, runs } = fakeHost({
      executables: [
        '/usr/lib/postgresql/9/bin/initdb',
        '/usr/lib/postgresql/15/bin/initdb',
        '/usr/lib/postgresql/15/bin/pg_ctl',
        '/usr/lib/postgresql/15/bin/postgres',
        '/usr/lib/postgresql/15/bin/pg_basebackup',
        '/usr/lib/postgresql/16/bin/initdb',
        '/usr/lib/postgresql/16/bin/pg_ctl',
        '/usr/lib/postgresql/16/bin/postgres',
        '/usr/lib/postgresql/16/bin/pg_basebackup',
        '/usr/sbin/pgbouncer',
      ],
    });
    expect(Object.fromEntries(await provisionBinaries([postgres], host))).toEqual({
      initdb: '/usr/lib/postgresql/16/bin/initdb',
      pg_ctl: '/usr/lib/postgresql/16/bin/pg_ctl',
      postgres: '/usr/lib/postgresql/16/bin/postgres',
      pg_basebackup: '/usr/lib/postgresql/16/bin/pg_basebackup',
      pgbouncer: '/usr/sbin/pgbouncer',
    });
    expect(runs).toEqual([]);
  });

  it('installs postgresql once for its four programs, and pgbouncer beside it', async () => {
    const { host, runs, printed } = fakeHost();
    const located = await provisionBinaries([postgres], host);
    expect(runs.at(-1)?.args).toEqual(['install', '-y', '-qq', '--no-install-recommends', 'postgresql', 'pgbouncer']);
    expect(printed).toEqual([
      'Installing postgresql and pgbouncer with apt-get: initdb, pg_ctl, postgres, pg_basebackup and pgbouncer are not installed, and the postgres test project needs them.',
    ]);
    expect(located.get('postgres')).toBe('/usr/lib/postgresql/15/bin/postgres');
  });

  it('asks for nothing for the unit project', async () => {
    const { host, runs } = fakeHost({ executables: [], root: false });
    expect((await provisionBinaries([testProject('unit')], host)).size).toBe(0);
    expect(runs).toEqual([]);
  });
});

describe('locateBinary', () => {
  it('takes the first directory of PATH that has it', () => {
    const { host } = fakeHost({
      executables: ['/usr/bin/git', '/opt/git/bin/git'],
      path: ['/opt/git/bin', '/usr/bin'],
    });
    expect(locateBinary({ name: 'git', debianPackage: 'git' }, host)).toBe('/opt/git/bin/git');
  });
});

describe('the test project table', () => {
  it('has one project without a suffix, unit, and distinct suffixes that match their names', () => {
    expect(testProjects.filter((project) => project.suffix === undefined).map((project) => project.name)).toEqual([
      'unit',
    ]);
    const suffixes = testProjects.flatMap((project) => (project.suffix === undefined ? [] : [project.suffix]));
    expect(new Set(suffixes).size).toBe(suffixes.length);
    expect(suffixes.sort()).toEqual(['cluster', 'postgres', 'process', 'redis', 'sentinel']);
  });

  it.each([
    ['test/runtime/redis/redis-lease-strategy.redis.test.ts', 'redis'],
    ['test/runtime/redis/redis-checkpoint-storage.ioredis6.cluster.test.ts', 'cluster'],
    ['test/runtime/postgres/postgres-lease-strategy.postgres.test.ts', 'postgres'],
    ['test/package/npm-pack.process.test.ts', 'process'],
    ['test/failover/sentinel-failover.sentinel.test.ts', 'sentinel'],
    ['test/runtime/subscription/three-node-takeover.in-memory.test.ts', 'unit'],
    ['test/runtime/redis/redis-checkpoint-storage.test.ts', 'unit'],
  ])('puts %s in the %s project', (file, project) => {
    expect(testProjectOfFile(file).name).toBe(project);
  });

  it('lists the projects that have test files, and only those', () => {
    const root = temporaryDirectory('test-projects');
    mkdirSync(join(root, 'runtime/redis'), { recursive: true });
    writeFileSync(join(root, 'runtime/redis/storage.redis.test.ts'), '');
    writeFileSync(join(root, 'runtime/writer.test.ts'), '');
    writeFileSync(join(root, 'runtime/redis/helper.ts'), '');
    expect(testProjectsWithFiles(root).map((project) => project.name)).toEqual(['unit', 'redis']);
  });

  it('throws naming the known projects for an unknown one', () => {
    expect(() => testProject('mongodb')).toThrow(
      'There is no test project named "mongodb"; the projects are unit, redis, cluster, sentinel, postgres, process',
    );
  });
});
