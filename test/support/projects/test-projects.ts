import { readdirSync } from 'node:fs';

/** An executable a test project runs, and the Debian package that ships it. */
export interface RequiredBinary {
  /** The executable's file name, e.g. `redis-server`. */
  readonly name: string;
  /** The Debian package `apt-get install` brings it with. */
  readonly debianPackage: string;
  /**
   * Directories searched after PATH, for programs Debian keeps off PATH. A path segment `*` stands for every entry of
   * its parent directory, highest version first: PostgreSQL 16's `bin` is found before 15's.
   */
  readonly searchDirectories?: readonly string[];
}

/** A shared server a project's global setup starts once per run; see `test/support/projects/shared-servers-global-setup.ts`. */
export type SharedServerKind = 'redis-server' | 'redis-cluster' | 'postgres-server';

/** One vitest project: which files it runs, what it needs on the machine, which shared servers it gets. */
export interface TestProjectDefinition {
  /** The vitest project name (`vitest run --project <name>`, `npm run test:<name>`). */
  readonly name: string;
  /** Files named `*.<suffix>.test.ts` belong to the project; the one project without a suffix takes every other file. */
  readonly suffix: string | undefined;
  readonly binaries: readonly RequiredBinary[];
  readonly sharedServers: readonly SharedServerKind[];
  /**
   * Runs once every other project has finished, its files one at a time: for suites that time replication and
   * failovers, which the load of the other projects' files delays past their bounds (a 500 ms `WAIT`, a 500 ms
   * down-after).
   */
  readonly runsAfterTheOthers?: boolean;
}

const redisServer: RequiredBinary = { name: 'redis-server', debianPackage: 'redis-server' };
const redisCli: RequiredBinary = { name: 'redis-cli', debianPackage: 'redis-tools' };
// Debian installs PostgreSQL's server programs off PATH, one directory per major version.
const postgresBinDirectories = ['/usr/lib/postgresql/*/bin'];

/**
 * The test projects, by file-name suffix (doc/testing.md). vitest.config.ts builds its projects from this table and
 * `npm test` provisions from it, so a new kind of server is one entry here (plus its global setup, if it shares one).
 */
export const testProjects: readonly TestProjectDefinition[] = [
  {
    name: 'unit',
    suffix: undefined,
    binaries: [],
    sharedServers: [],
  },
  {
    name: 'redis',
    suffix: 'redis',
    binaries: [redisServer],
    sharedServers: ['redis-server'],
  },
  {
    name: 'cluster',
    suffix: 'cluster',
    binaries: [redisServer, redisCli],
    sharedServers: ['redis-server', 'redis-cluster'],
  },
  {
    name: 'sentinel',
    suffix: 'sentinel',
    // A Sentinel is `redis-server --sentinel`; no package beyond the server's.
    binaries: [redisServer, redisCli],
    sharedServers: [],
    runsAfterTheOthers: true,
  },
  {
    name: 'postgres',
    suffix: 'postgres',
    binaries: [
      { name: 'initdb', debianPackage: 'postgresql', searchDirectories: postgresBinDirectories },
      { name: 'pg_ctl', debianPackage: 'postgresql', searchDirectories: postgresBinDirectories },
      { name: 'postgres', debianPackage: 'postgresql', searchDirectories: postgresBinDirectories },
      // Standbys for the failover suites; Debian ships it in postgresql-client, which postgresql depends on.
      { name: 'pg_basebackup', debianPackage: 'postgresql', searchDirectories: postgresBinDirectories },
      // Debian puts pgbouncer in /usr/sbin, which is not on most users' PATH.
      { name: 'pgbouncer', debianPackage: 'pgbouncer', searchDirectories: ['/usr/sbin'] },
    ],
    sharedServers: ['postgres-server'],
  },
  {
    name: 'process',
    suffix: 'process',
    binaries: [
      { name: 'git', debianPackage: 'git' },
      { name: 'script', debianPackage: 'bsdutils' },
    ],
    sharedServers: [],
  },
];

/** The project named `name`; throws for a name the table does not have. */
export function testProject(name: string): TestProjectDefinition {
  const project = testProjects.find((candidate) => candidate.name === name);
  if (project === undefined) {
    throw new Error(
      `There is no test project named ${JSON.stringify(name)}; the projects are ${testProjects.map((known) => known.name).join(', ')} (test/support/projects/test-projects.ts).`,
    );
  }
  return project;
}

/** The project a test file belongs to, by its name: `a.redis.test.ts` is `redis`, `a.test.ts` is `unit`. */
export function testProjectOfFile(file: string): TestProjectDefinition {
  const suffixed = testProjects.find(
    (project) => project.suffix !== undefined && file.endsWith(`.${project.suffix}.test.ts`),
  );
  return suffixed ?? testProject('unit');
}

/** The projects that have at least one test file under `testDirectory`, in table order. */
export function testProjectsWithFiles(testDirectory: string): TestProjectDefinition[] {
  const names = new Set(
    readdirSync(testDirectory, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.test.ts'))
      .map((file) => testProjectOfFile(file).name),
  );
  return testProjects.filter((project) => names.has(project.name));
}
