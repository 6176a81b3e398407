import { resolve } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { runOperatorCommand, type OperatorCommandName } from '../../../operator/index.js';
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
  // redis-cli reads `redis://<password>@host` so; ioredis and pg take it for a user name, and the server may say it.
  ['a password in the user-name place', ({ scheme, host, path }) => `${scheme}://${plain}@${host}${path}`],
  [
    'a percent-encoded password in the user-name place',
    ({ scheme, host, path }) => `${scheme}://${encodeURIComponent(special)}@${host}${path}`,
  ],
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

/** Where a fuzzed secret goes into a URL: the user info (ending in `@`, or empty) and the query (or empty). */
interface FuzzedCredentials {
  readonly userInfo: string;
  readonly query: string;
}

/** The characters that keep their meaning unencoded in a URL's user info, but for `:`, which ends a user name. */
const userInfoCharacters = ['a', 'Z', '9', '-', '.', '_', '~', '!', '$', '&', "'", '(', ')', '*', '+', ',', ';', '='];
const userInfoCharacter = fc.constantFrom(...userInfoCharacters);
/** Any character a secret may hold, URL delimiters, percent signs, quotes, spaces and non-ASCII ones included. */
const anyCharacter = fc.constantFrom(
  ...userInfoCharacters,
  ...[':', '@', '/', '?', '#', '[', ']', '%', '"', ' ', '\\', 'é', '€', '😀'],
);

/** A secret of random characters around {@link secretMarker}, which no output may contain. */
function fuzzedSecret(character: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const part = fc.string({ unit: character, maxLength: 8 });
  return fc.tuple(part, part).map(([before, after]) => `${before}${secretMarker}${after}`);
}

/** The places a secret is percent-encoded into: the user-name place, the password place, the query. */
const encodedPlaces: readonly ((secret: string) => FuzzedCredentials)[] = [
  (secret) => ({ userInfo: `${encodeURIComponent(secret)}@`, query: '' }),
  (secret) => ({ userInfo: `app:${encodeURIComponent(secret)}@`, query: '' }),
  (secret) => ({ userInfo: `:${encodeURIComponent(secret)}@`, query: '' }),
  (secret) => ({ userInfo: 'app@', query: `?password=${encodeURIComponent(secret)}` }),
];

/** The user-name place, written as given, as `redis-cli -u redis://<password>@host` takes a password. */
function rawUserNamePlace(secret: string): FuzzedCredentials {
  return { userInfo: `${secret}@`, query: '' };
}

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
  it('prints no part of a random secret, in any place of the URL, on any of these failures (fuzzed)', async () => {
    const wherever = await Promise.all(failures.map(async ([, parts]) => parts()));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...wherever),
        fc.constantFrom(...commandLines),
        fc
          .oneof(
            fuzzedSecret(anyCharacter).map((secret) => ({ secret, place: fc.constantFrom(...encodedPlaces) })),
            fuzzedSecret(userInfoCharacter).map((secret) => ({ secret, place: fc.constant(rawUserNamePlace) })),
          )
          .chain(({ secret, place }) => place.map((put) => put(secret))),
        async (parts, [command, args], credentials) => {
          const given = `${parts.scheme}://${credentials.userInfo}${parts.host}${parts.path}${credentials.query}`;
          expectFailureWithoutSecret(await runInProcess(command, [...args, flag, given]), command);
        },
      ),
      { numRuns: 132 },
    );
  }, 120_000);
  const binShapes = secretUrlShapes.filter(([name]) =>
    ['percent-encoded user info', '?password= after another parameter', 'a password in the user-name place'].includes(
      name,
    ),
  );
  describe.each(commandLines)('the bin, %s', (command, args) => {
    it.each(binShapes)('with the password in %s', { timeout: 60_000 }, async (_, url) => {
      const run = await runCli([command, ...args, flag, url(server())]);
      expectFailureWithoutSecret({ code: run.status ?? -1, out: run.stdout, err: run.stderr }, command);
    });
  });
}
