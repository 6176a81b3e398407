import { once } from 'node:events';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_NAME } from '../vocabulary/index.js';
import { inspectCommand } from './inspect-command.js';
import type { OperatorBackend } from './operator-backend.js';
import { parseOperatorArguments, type OperatorStore } from './operator-arguments.js';
import { OperatorError, OperatorUsageError } from './operator-error.js';
import type { OperatorIo } from './operator-io.js';
import { operatorUsage, type OperatorCommandName } from './operator-usage.js';
import { loadPeerDependency } from './peer-dependency.js';
import { printable } from './printable-text.js';
import type { PgModule } from './postgres/postgres-connection.js';
import { PostgresOperatorBackend } from './postgres/postgres-operator-backend.js';
import type { IORedisModule } from './redis/redis-connection.js';
import { RedisOperatorBackend } from './redis/redis-operator-backend.js';
import { repairCommand } from './repair-command.js';
import { resetCommand } from './reset-command.js';
import { SecretRedactor } from './secret-redactor.js';

/** Exit code of every failure: bad arguments, a server that cannot be reached or refuses, a missing package. */
const exitError = 2;

/** Where a command runs: its output streams and the directory of the project it runs in. */
export interface OperatorEnvironment {
  readonly io: OperatorIo;
  /** Where ioredis or pg is looked up first: the user's project. */
  readonly cwd: string;
}

/** The environment of the process running the bin. */
function processEnvironment(): OperatorEnvironment {
  return {
    io: {
      out: (text) => process.stdout.write(text),
      err: (text) => process.stderr.write(text),
      outDrained: async () => {
        if (process.stdout.writableNeedDrain) {
          await once(process.stdout, 'drain');
        }
      },
      errIsTTY: process.stderr.isTTY,
    },
    cwd: process.cwd(),
  };
}

/**
 * Runs `checkpoint-fencing <command> …argv` for one of the operator commands and resolves to its exit code; never
 * rejects. Everything written to stderr goes through a redactor that knows the URL's password, and everything written
 * escapes the characters a terminal acts on (`printable`); a failure is one line.
 */
export async function runOperatorCommand(
  command: OperatorCommandName,
  argv: readonly string[],
  environment: OperatorEnvironment = processEnvironment(),
): Promise<number> {
  const redactor = new SecretRedactor();
  const io: OperatorIo = {
    out: (text) => {
      environment.io.out(printable(text));
    },
    err: (text) => {
      environment.io.err(printable(redactor.redact(text)));
    },
    outDrained: environment.io.outDrained,
    errIsTTY: environment.io.errIsTTY,
  };
  try {
    const invocation = parseOperatorArguments(command, argv, redactor);
    if (invocation.help || invocation.store === undefined) {
      io.out(`${operatorUsage[command]}\n`);
      return 0;
    }
    const backend = await connect(invocation.store, environment.cwd);
    try {
      const settings =
        invocation.store.kind === 'redis'
          ? '--key-prefix, --version-key-prefix and --lease-key-prefix'
          : '--schema and --table';
      switch (command) {
        case 'inspect':
          return await inspectCommand(invocation, backend, io);
        case 'repair':
          return await repairCommand(invocation, backend, io, settings);
        case 'reset':
          return await resetCommand(invocation, backend, io, settings);
      }
    } finally {
      await backend.close();
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const hint = error instanceof OperatorUsageError ? `; see ${PACKAGE_NAME} ${command} --help` : '';
    io.err(`${PACKAGE_NAME} ${command}: ${message.replace(/\s*\n\s*/gu, ' ').replace(/\.$/u, '')}${hint}.\n`);
    return exitError;
  }
}

/** Loads the client the store needs from the user's project, then connects. */
async function connect(store: OperatorStore, cwd: string): Promise<OperatorBackend> {
  // After the working directory, where this package is installed: npm puts a peer dependency beside it.
  const searchFrom = [cwd, dirname(fileURLToPath(import.meta.url))];
  if (store.kind === 'redis') {
    const ioredis = loadPeerDependency({ name: 'ioredis', majors: [5, 6], neededBy: '--redis' }, searchFrom);
    if (store.options.cluster && compareVersions(ioredis.version, natMapFunctionSince) < 0) {
      throw new OperatorError(
        `--cluster needs ioredis ${natMapFunctionSince} or later, whose natMap function keeps every connection on the nodes ` +
          `the seed announces, but ${ioredis.entry} is ioredis ${ioredis.version}; install a newer one: npm install ioredis@6`,
      );
    }
    // Checked to be ioredis 5 or 6 by its package.json; both have the API this code is typed against.
    return RedisOperatorBackend.connect(ioredis.module as IORedisModule, store.address, store.options);
  }
  const pg = loadPeerDependency({ name: 'pg', majors: [8], neededBy: '--postgres' }, searchFrom);
  return PostgresOperatorBackend.connect(pg.module as PgModule, store.address, store.options);
}

/** The first ioredis whose `natMap` may be a function (redis/ioredis#1948). */
const natMapFunctionSince = '5.5.0';

/** Compares two `major.minor.patch` versions (a pre-release suffix is ignored). */
function compareVersions(left: string, right: string): number {
  const parts = (version: string): number[] => version.split(/[.-]/u, 3).map(Number);
  const [a, b] = [parts(left), parts(right)];
  for (let index = 0; index < 3; index += 1) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) {
      return difference;
    }
  }
  return 0;
}
