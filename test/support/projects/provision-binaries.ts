import { join } from 'node:path';
import type { RequiredBinary, TestProjectDefinition } from './test-projects.js';

/** The outcome of a command run by {@link ProvisioningHost.run}. */
export interface CommandOutcome {
  /** The exit status; `null` when a signal ended the command. */
  readonly status: number | null;
  /** Its stdout and stderr, interleaved as they came. */
  readonly output: string;
}

/** What provisioning needs from the machine. The real one is `systemProvisioningHost()`; tests pass their own. */
export interface ProvisioningHost {
  /** PATH's directories, in order. */
  readonly pathDirectories: readonly string[];
  /** Whether this process runs as root, the one user `apt-get install` works for. */
  readonly isRoot: boolean;
  /** Whether `path` is a file this user may execute. */
  isExecutable(path: string): boolean;
  /** The entry names of a directory; none when it does not exist. */
  listDirectory(path: string): readonly string[];
  /** Runs `command` to completion with `env` added to the environment. */
  run(command: string, args: readonly string[], env: Readonly<Record<string, string>>): Promise<CommandOutcome>;
  /** Tells the person running the tests one line. */
  print(line: string): void;
}

/** The binaries cannot be had: the message says which, who needs them, and the exact command that installs them. */
export class ProvisioningError extends Error {
  override readonly name = 'ProvisioningError';
}

const apt: RequiredBinary = { name: 'apt-get', debianPackage: 'apt' };
const aptEnvironment = { DEBIAN_FRONTEND: 'noninteractive' };
const outputTail = 4_000;

/**
 * Makes sure every binary `projects` need exists and returns where each one is (name → absolute path). A missing one
 * is installed from its Debian package with apt-get when this process is root, after printing one line that says what
 * and why; otherwise, or without apt-get, it throws a {@link ProvisioningError} naming the command to run. Never skips.
 */
export async function provisionBinaries(
  projects: readonly TestProjectDefinition[],
  host: ProvisioningHost,
): Promise<ReadonlyMap<string, string>> {
  const required = uniqueBy(
    projects.flatMap((project) => project.binaries),
    (binary) => binary.name,
  );
  const located = new Map<string, string>();
  const missing: RequiredBinary[] = [];
  for (const binary of required) {
    const path = locateBinary(binary, host);
    if (path === undefined) {
      missing.push(binary);
    } else {
      located.set(binary.name, path);
    }
  }
  if (missing.length === 0) {
    return located;
  }

  const packages = uniqueBy(
    missing.map((binary) => binary.debianPackage),
    (name) => name,
  );
  const missingNames = new Set(missing.map((binary) => binary.name));
  const needers = projects.filter((project) => project.binaries.some((binary) => missingNames.has(binary.name)));
  const names = listed(missing.map((binary) => binary.name));
  const [them, are] = missing.length === 1 ? ['it', 'is'] : ['them', 'are'];
  const who = `the ${listed(needers.map((project) => project.name))} test ${needers.length === 1 ? 'project needs' : 'projects need'}`;
  const what = `${names} ${are} not installed, and ${who} ${them}`;
  const install = `apt-get install -y ${packages.join(' ')}`;
  const aptGet = locateBinary(apt, host);
  if (aptGet === undefined) {
    throw new ProvisioningError(
      `${what}. This machine has no apt-get, so the tests cannot install ${them}: install ${them} with its package ` +
        `manager so that ${names} ${are} on PATH (on Debian and Ubuntu: apt-get update && ${install}), then run the ` +
        'tests again.',
    );
  }
  if (!host.isRoot) {
    throw new ProvisioningError(
      `${what}. The tests install missing packages only when they run as root. Install ${them}, then run the tests ` +
        `again:\n\n  sudo apt-get update && sudo ${install}\n`,
    );
  }

  host.print(`Installing ${listed(packages)} with apt-get: ${what}.`);
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', '--no-install-recommends', ...packages],
  ]) {
    const outcome = await host.run(aptGet, args, aptEnvironment);
    if (outcome.status !== 0) {
      throw new ProvisioningError(
        `apt-get ${args.join(' ')} failed (exit status ${String(outcome.status)}) while installing ${listed(packages)} ` +
          `because ${what}. Its output ends with:\n${outcome.output.slice(-outputTail)}`,
      );
    }
  }
  for (const binary of missing) {
    const path = locateBinary(binary, host);
    if (path === undefined) {
      throw new ProvisioningError(
        `apt-get installed ${binary.debianPackage}, but ${binary.name} is still not found on PATH` +
          `${binary.searchDirectories === undefined ? '' : ` or in ${binary.searchDirectories.join(', ')}`}. ` +
          `Check \`dpkg -L ${binary.debianPackage}\` for where it went.`,
      );
    }
    located.set(binary.name, path);
  }
  return located;
}

/** The absolute path of `binary`: the first executable on PATH, then in its search directories; undefined if none. */
export function locateBinary(binary: RequiredBinary, host: ProvisioningHost): string | undefined {
  const directories = [
    ...host.pathDirectories,
    ...(binary.searchDirectories ?? []).flatMap((pattern) => expandDirectoryPattern(pattern, host)),
  ];
  for (const directory of directories) {
    const candidate = join(directory, binary.name);
    if (host.isExecutable(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

function expandDirectoryPattern(pattern: string, host: ProvisioningHost): string[] {
  const segments = pattern.split('/');
  const star = segments.indexOf('*');
  if (star === -1) {
    return [pattern];
  }
  const parent = segments.slice(0, star).join('/') || '/';
  const rest = segments.slice(star + 1).join('/');
  return [...host.listDirectory(parent)]
    .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }))
    .flatMap((entry) => expandDirectoryPattern(join(parent, entry, rest), host));
}

function uniqueBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Map<string, T>();
  for (const item of items) {
    if (!seen.has(key(item))) {
      seen.set(key(item), item);
    }
  }
  return [...seen.values()];
}

function listed(names: readonly string[]): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
}
