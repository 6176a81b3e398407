#!/usr/bin/env node
import { PACKAGE_NAME, PACKAGE_VERSION } from '../vocabulary/index.js';

// The package's one bin. It only dispatches: each command's code is loaded when that command runs, so the upgrade
// never loads a Redis or PostgreSQL client and the operator commands never load ts-morph.

const USAGE = `Usage: ${PACKAGE_NAME} <command> [options]

Commands:
  upgrade   move pre-fencing CheckpointStorage implementers to the current interface (a codemod)
  inspect   show every subscription's checkpoint, version, lease and token, and flag the unhealthy ones
  repair    raise a stuck subscription's token counter past its stored version, with nothing replayed
  reset     delete a subscription's checkpoint and keep its fence; delivery restarts from its start position
Run ${PACKAGE_NAME} <command> --help for a command's options, ${PACKAGE_NAME} --version for the version.`;

const commands = '"upgrade", "inspect", "repair" and "reset"';

async function dispatch([command, ...args]: readonly string[]): Promise<number> {
  switch (command) {
    case 'upgrade':
      return (await import('./add-write-conditions/upgrade-command.js')).runUpgradeCommand(args);
    case 'inspect':
    case 'repair':
    case 'reset':
      return (await import('../operator/index.js')).runOperatorCommand(command, args);
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case '--version':
    case '-v':
      process.stdout.write(`${PACKAGE_VERSION}\n`);
      return 0;
    default:
      process.stderr.write(
        `${PACKAGE_NAME}: ${command === undefined ? 'missing command' : `unknown command ${JSON.stringify(command)}`}; ` +
          `the commands are ${commands}; run ${PACKAGE_NAME} --help.\n`,
      );
      return 2;
  }
}

void dispatch(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
