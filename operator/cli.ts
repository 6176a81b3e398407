#!/usr/bin/env node
import { setFlagsFromString } from 'node:v8';
import { CLI_PACKAGE_NAME, CODEMOD_PACKAGE_NAME, PACKAGE_NAME, packageVersion } from '../vocabulary/index.js';
import { printable } from './printable-text.js';

// The operator package's bin, `checkpoint-fencing` as it was in the runtime, and `checkpoint-fencing-cli`, which
// `npx checkpoint-fencing-cli` runs. It only dispatches, loading the command's code (and the user's ioredis or pg with
// it) when that command runs. The upgrade lives in the codemod package; asked for it, the bin names the one command
// that runs it.

const USAGE = `Usage: ${PACKAGE_NAME} <command> [options]

Commands:
  inspect   show every subscription's checkpoint, version, lease and token, and flag the unhealthy ones
  repair    raise a stuck subscription's token counter past its stored version, with nothing replayed
  reset     delete a subscription's checkpoint and keep its fence; delivery restarts from its start position
Run ${PACKAGE_NAME} <command> --help for a command's options, ${PACKAGE_NAME} --version for the version.
To move pre-fencing CheckpointStorage implementers to the current interface, run: npx ${CODEMOD_PACKAGE_NAME} upgrade`;

const commands = '"inspect", "repair" and "reset"';

/**
 * How V8 sizes the heap of an operator command's process (ADR 1005): the new space keeps its initial size instead of
 * growing to 16 MiB semi-spaces, and the old space is collected once it holds twice what the last full collection
 * kept, instead of up to four times. An inspection allocates fast and keeps little, so this holds its peak RSS flat as
 * the keyspace grows. It changes when V8 collects, never what the command computes; only the bin's own process sets it.
 */
const operatorHeapFlags = '--semi-space-growth-factor=1 --heap-growing-percent=100';

async function dispatch([command, ...args]: readonly string[]): Promise<number> {
  switch (command) {
    case 'inspect':
    case 'repair':
    case 'reset':
      setFlagsFromString(operatorHeapFlags);
      return (await import('./index.js')).runOperatorCommand(command, args);
    case 'upgrade':
      // Nothing was upgraded, so not 0; the command alone on stdout, for copying or `$(checkpoint-fencing upgrade)`.
      process.stderr.write(`${PACKAGE_NAME}: the upgrade is the ${CODEMOD_PACKAGE_NAME} package's; run it with npx:\n`);
      process.stdout.write(`npx ${CODEMOD_PACKAGE_NAME} upgrade\n`);
      return 2;
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case '--version':
    case '-v':
      process.stdout.write(`${packageVersion(CLI_PACKAGE_NAME)}\n`);
      return 0;
    default:
      process.stderr.write(
        `${PACKAGE_NAME}: ${command === undefined ? 'missing command' : `unknown command ${printable(JSON.stringify(command))}`}; ` +
          `the commands are ${commands}; run ${PACKAGE_NAME} --help.\n`,
      );
      return 2;
  }
}

void dispatch(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
