#!/usr/bin/env node
import { CODEMOD_PACKAGE_NAME, packageVersion } from '../vocabulary/index.js';

// The codemod package's bin, run once with `npx checkpoint-fencing-codemod upgrade`. It only dispatches: the recipe
// (and ts-morph with it) loads when `upgrade` runs, so `--help` and `--version` answer at once.

const USAGE = `Usage: ${CODEMOD_PACKAGE_NAME} upgrade [options]

Commands:
  upgrade   move pre-fencing CheckpointStorage implementers to the current interface
Run ${CODEMOD_PACKAGE_NAME} upgrade --help for its options, ${CODEMOD_PACKAGE_NAME} --version for the version.`;

async function dispatch([command, ...args]: readonly string[]): Promise<number> {
  switch (command) {
    case 'upgrade':
      return (await import('./add-write-conditions/upgrade-command.js')).runUpgradeCommand(args);
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return 0;
    case '--version':
    case '-v':
      process.stdout.write(`${packageVersion(CODEMOD_PACKAGE_NAME)}\n`);
      return 0;
    default:
      process.stderr.write(
        `${CODEMOD_PACKAGE_NAME}: ${command === undefined ? 'missing command' : `unknown command ${JSON.stringify(command)}`}; ` +
          `the command is "upgrade"; run ${CODEMOD_PACKAGE_NAME} --help.\n`,
      );
      return 2;
  }
}

void dispatch(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
