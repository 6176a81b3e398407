import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CLI_PACKAGE_NAME } from '../vocabulary/index.js';
import { OperatorError } from './operator-error.js';

/** A client library the operator commands need but the package does not depend on: ioredis or pg. */
export interface PeerDependency {
  readonly name: 'ioredis' | 'pg';
  /** The major versions the package's peer range admits. */
  readonly majors: readonly number[];
  /** The flag that needs it, for the message. */
  readonly neededBy: string;
}

/** A client library as loaded: its module and the version its package.json says. */
export interface LoadedPeerDependency {
  readonly module: unknown;
  readonly version: string;
  /** The file `require` resolved, for messages. */
  readonly entry: string;
}

/**
 * Loads `dependency` the way the user's project has it: resolved from each of `searchFrom` in turn (the working
 * directory first, then this package's own location, where npm puts a peer dependency), never installed or bundled
 * by this package, so neither it nor the runtime depends on either client (ADR 1001).
 * @throws OperatorError naming the package and the install command when none of the directories resolves it, or
 * when the one found has a major version outside the peer range.
 */
export function loadPeerDependency(dependency: PeerDependency, searchFrom: readonly string[]): LoadedPeerDependency {
  for (const directory of searchFrom) {
    const require = createRequire(join(directory, 'noop.js'));
    let entry: string;
    try {
      entry = require.resolve(dependency.name);
    } catch {
      continue;
    }
    const version = installedVersion(dependency.name, entry);
    const major = Number(version?.split('.')[0]);
    if (version === undefined || !dependency.majors.includes(major)) {
      throw new OperatorError(
        `${dependency.neededBy} needs ${dependency.name} ${dependency.majors.join(' or ')}, but ${entry} is ` +
          `${dependency.name} ${version ?? 'of an unknown version'}; install a supported one: npm install ${dependency.name}@${String(dependency.majors.at(-1))}`,
      );
    }
    return { module: require(dependency.name) as unknown, version, entry };
  }
  throw new OperatorError(
    `${dependency.neededBy} needs the ${dependency.name} package, which ${CLI_PACKAGE_NAME} does not install (it is an optional ` +
      `peer dependency) and which is not installed in ${searchFrom[0] ?? 'this project'}; install it: npm install ${dependency.name}`,
  );
}

/** The version in the package.json of the package `name` whose entry file is `entry`. */
function installedVersion(name: string, entry: string): string | undefined {
  for (let directory = dirname(entry); directory !== dirname(directory); directory = dirname(directory)) {
    const manifest = join(directory, 'package.json');
    if (existsSync(manifest)) {
      const parsed = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown; version?: unknown };
      if (parsed.name === name && typeof parsed.version === 'string') {
        return parsed.version;
      }
    }
  }
  return undefined;
}
