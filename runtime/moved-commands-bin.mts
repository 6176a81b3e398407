#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CLI_PACKAGE_NAME, CODEMOD_PACKAGE_NAME, PACKAGE_NAME } from '../vocabulary/index.js';

// The runtime's bin, for the commands that left the runtime (doc/adr/1006): it names the package and the npx command
// that runs each. The operator commands' own package has a `checkpoint-fencing` bin too, but npm links this one in its
// place wherever both are installed, as they always are (that package depends on this one), so where that package is
// installed this bin hands it every command, its help and its version.

const movedTo: Readonly<Record<string, string>> = {
  inspect: CLI_PACKAGE_NAME,
  repair: CLI_PACKAGE_NAME,
  reset: CLI_PACKAGE_NAME,
  upgrade: CODEMOD_PACKAGE_NAME,
};

const [command = '', ...args] = process.argv.slice(2);
const target = Object.hasOwn(movedTo, command) ? movedTo[command] : undefined;
const installedCli = installedBin(CLI_PACKAGE_NAME);
if (installedCli !== undefined) {
  await import(pathToFileURL(installedCli).href);
} else if (target === undefined) {
  process.stderr.write(
    `${PACKAGE_NAME}: the commands are in their own packages now: inspect, repair and reset in ${CLI_PACKAGE_NAME} ` +
      `(npx ${CLI_PACKAGE_NAME} --help), upgrade in ${CODEMOD_PACKAGE_NAME} (npx ${CODEMOD_PACKAGE_NAME} --help).\n`,
  );
  process.exitCode = 2;
} else {
  // The command alone on stdout, for copying; nothing ran, so not 0.
  process.stderr.write(`${PACKAGE_NAME}: ${command} is in the ${target} package; run it with npx:\n`);
  process.stdout.write(`npx ${[target, command, ...args].map(shown).join(' ')}\n`);
  process.exitCode = 2;
}

/** The file of `name`'s bin of that name, where that package is installed beside this one; `undefined` if it is not. */
function installedBin(name: string): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve(`${name}/package.json`);
    const { bin } = JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> };
    return bin?.[name] === undefined ? undefined : join(dirname(manifest), bin[name]);
  } catch {
    return undefined;
  }
}

/**
 * `argument` as a POSIX shell reads it back, with what a URL may hold a password in (the password, a user name given
 * alone, which redis-cli takes for a password, the query, the fragment) shown as `***`: no command prints a password.
 */
function shown(argument: string): string {
  let text = argument;
  if (/^[a-z][a-z0-9+.-]*:\/\/.*[@?#]/isu.test(argument) && URL.canParse(argument)) {
    const url = new URL(argument);
    if (url.password !== '') {
      url.password = '***';
    } else if (url.username !== '') {
      url.username = '***';
    }
    url.search = url.search === '' ? '' : '***';
    url.hash = url.hash === '' ? '' : '***';
    text = url.href;
  }
  return /^[\w./:=@%+,-]+$/u.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}
