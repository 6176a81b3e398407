import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOperatorCommand, type OperatorCommandName } from '../../../runtime/operator/index.js';
import { freeLoopbackPort } from '../../support/free-loopback-port.js';
import { runCli } from './operator-cli.js';

/**
 * The part of every secret below that no output may contain: it survives every encoding (as given, percent-encoded in
 * upper or lower case, decoded), so one search finds any form of the secret, or any part of it left over.
 */
export const secretMarker = 'xyzzy7f3a';

const plain = `hunter-${secretMarker}`;
/** A secret with characters a URL must percent-encode. */
const special = `p@ss/${secretMarker}:`;

/** Where a URL is pointed: its scheme, `host:port` and path (with the leading `/`). */
export interface UrlParts {
  readonly scheme: string;
  readonly host: string;
  readonly path: string;
}

/**
 * Every place a URL can carry a password that ioredis, pg, libpq or a reader would take for one, each as a URL built
 * from `parts`. The query forms are what pg (every parameter into its config) and ioredis (every one into its
 * options) read as `password`.
 */
export const secretUrlShapes: readonly (readonly [string, (parts: UrlParts) => string])[] = [
  ['user info', ({ scheme, host, path }) => `${scheme}://app:${plain}@${host}${path}`],
  ['user info without a user name', ({ scheme, host, path }) => `${scheme}://:${plain}@${host}${path}`],
  [
    'percent-encoded user info',
    ({ scheme, host, path }) => `${scheme}://app:${encodeURIComponent(special)}@${host}${path}`,
  ],
  [
    'lower-case percent-encoded user info',
    ({ scheme, host, path }) => `${scheme}://app:${encodeURIComponent(special).toLowerCase()}@${host}${path}`,
  ],
  ['user info not percent-encoded', ({ scheme, host, path }) => `${scheme}://app:pa ss"${plain}@${host}${path}`],
  ['?password=', ({ scheme, host, path }) => `${scheme}://app@${host}${path}?password=${plain}`],
  ['?pass=', ({ scheme, host, path }) => `${scheme}://${host}${path}?pass=${plain}`],
  ['?sslpassword=', ({ scheme, host, path }) => `${scheme}://${host}${path}?sslpassword=${plain}`],
  ['?sentinelPassword=', ({ scheme, host, path }) => `${scheme}://${host}${path}?sentinelPassword=${plain}`],
  ['?PassWord= (mixed case)', ({ scheme, host, path }) => `${scheme}://${host}${path}?PassWord=${plain}`],
  ['?pass%77ord= (percent-encoded name)', ({ scheme, host, path }) => `${scheme}://${host}${path}?pass%77ord=${plain}`],
  [
    '?password= percent-encoded',
    ({ scheme, host, path }) => `${scheme}://${host}${path}?password=${encodeURIComponent(special)}`,
  ],
  ['?password= with + for a space', ({ scheme, host, path }) => `${scheme}://${host}${path}?password=a+${plain}`],
  [
    '?password= after another parameter',
    ({ scheme, host, path }) => `${scheme}://${host}${path}?sslmode=disable&password=${plain}`,
  ],
  ['user info and ?password=', ({ scheme, host, path }) => `${scheme}://app:${plain}@${host}${path}?password=${plain}`],
  ['an unknown parameter', ({ scheme, host, path }) => `${scheme}://${host}${path}?apikey=${plain}`],
  ['a fragment', ({ scheme, host, path }) => `${scheme}://${host}${path}#${plain}`],
  ['no host: user info in the path', ({ scheme, host, path }) => `${scheme}:/:${plain}@${host}${path}`],
];

/** The three commands, each with the arguments that take it past its own checks to the store. */
export const commandLines: readonly (readonly [OperatorCommandName, readonly string[]])[] = [
  ['inspect', []],
  ['repair', ['orders', '--raise-token']],
  ['reset', ['orders', '--yes']],
];

/** What a command printed. */
export interface PrintedOutput {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * Runs the function the bin runs, in this process, with its output captured and the client packages loaded from the
 * repository, as the bin run there loads them.
 */
export async function runInProcess(command: OperatorCommandName, args: readonly string[]): Promise<PrintedOutput> {
  let out = '';
  let err = '';
  const code = await runOperatorCommand(command, args, {
    io: {
      out: (text) => {
        out += text;
      },
      err: (text) => {
        err += text;
      },
      outDrained: async () => undefined,
      errIsTTY: false,
    },
    cwd: resolve(import.meta.dirname, '../../..'),
  });
  return { code, out, err };
}

/** Asserts a failed command: exit 2, nothing on stdout, one line on stderr, and no part of the secret anywhere. */
export function expectFailureWithoutSecret({ code, out, err }: PrintedOutput, command: OperatorCommandName): void {
  expect(out).not.toContain(secretMarker);
  expect(err).not.toContain(secretMarker);
  expect(code).toBe(2);
  expect(out).toBe('');
  expect(err).toMatch(new RegExp(`^checkpoint-fencing ${command}: [^\\n]+\\.\\n$`, 'u'));
}

/**
 * Registers the tests that every command prints no part of a secret held in any of {@link secretUrlShapes}, on each
 * way it can fail: a URL refused before connecting (`refusedPath`), a bad scheme, a host where nothing listens, and
 * credentials refused by the server `server()` names, which asks for a password. They run the function the bin runs,
 * in this process; the spawned bin runs each command with one shape whose password reaches the server (percent-encoded
 * user info) and one refused before connecting (`?password=` after `sslmode`).
 */
export function itPrintsNoSecret(flag: '--redis' | '--postgres', refusedPath: string, server: () => UrlParts): void {
  const failures: readonly (readonly [string, () => Promise<UrlParts>])[] = [
    ['a refused URL', async () => Promise.resolve({ ...server(), path: refusedPath })],
    ['a bad scheme', async () => Promise.resolve({ ...server(), scheme: 'http' })],
    ['an unreachable host', async () => ({ ...server(), host: `127.0.0.1:${await freeLoopbackPort()}` })],
    ['refused credentials', async () => Promise.resolve(server())],
  ];
  describe.each(failures)('%s', (_, parts) => {
    it.each(secretUrlShapes)('%s', async (_shape, url) => {
      const given = url(await parts());
      for (const [command, args] of commandLines) {
        expectFailureWithoutSecret(await runInProcess(command, [...args, flag, given]), command);
      }
    });
  });
  const binShapes = secretUrlShapes.filter(
    ([name]) => name === 'percent-encoded user info' || name === '?password= after another parameter',
  );
  describe.each(commandLines)('the bin, %s', (command, args) => {
    it.each(binShapes)('with the password in %s', { timeout: 60_000 }, async (_, url) => {
      const run = await runCli([command, ...args, flag, url(server())]);
      expectFailureWithoutSecret({ code: run.status ?? -1, out: run.stdout, err: run.stderr }, command);
    });
  });
}
