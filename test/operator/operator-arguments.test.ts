import { describe, expect, it } from 'vitest';
import { runOperatorCommand, type OperatorCommandName } from '../../operator/index.js';

// Every bad command line is refused before anything connects or loads a client: these run the same function the bin
// runs, with its output captured, and need no child process (the spawned bin is tested in *.process.test.ts).

async function run(
  command: OperatorCommandName,
  args: readonly string[],
): Promise<{ code: number; out: string; err: string }> {
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
    cwd: '/nonexistent',
  });
  return { code, out, err };
}

const redis = ['--redis', 'redis://:hunter2@127.0.0.1:6379'];
const postgres = ['--postgres', 'postgres://app:hunter2@127.0.0.1:5432/app'];

/** The refusal of an option that takes a value, given more than once: parseArgs would keep the last one. */
const giveOnce = (flag: string): RegExp =>
  new RegExp(`${flag} is given more than once, and only one can be used; give it once`, 'u');

const cases: readonly (readonly [OperatorCommandName, readonly string[], RegExp])[] = [
  ['inspect', [], /say where the checkpoints are: --redis <url> or --postgres <url>/u],
  ['inspect', [...redis, ...postgres], /give either --redis or --postgres, not both/u],
  ['inspect', ['--redis', 'redis://:hunter2@[::1'], /--redis: not a URL; use redis:\/\/\[user\[:password\]@\]host/u],
  [
    'inspect',
    ['--redis', 'http://:hunter2@example.com'],
    /--redis http:\/\/:\*\*\*@example\.com\/: the scheme must be redis:\/\/ or rediss:\/\//u,
  ],
  ['inspect', ['--redis', 'redis://:hunter2@h/x'], /the path must be a database number such as \/0/u],
  [
    'inspect',
    ['--redis', 'redis://:hunter2@h?sentinel=1'],
    /unsupported parameter "sentinel" would be ignored or could send the connection elsewhere/u,
  ],
  ['inspect', ['--redis', 'redis:///0'], /--redis: the URL names no host; use redis:\/\//u],
  ['inspect', ['--postgres', 'postgres:/:hunter2@h/db'], /--postgres: the URL names no host; use postgres:\/\//u],
  [
    'inspect',
    ['--postgres', 'postgres://app@h/db?sslmode=require&password=hunter2'],
    /--postgres postgres:\/\/\*\*\*@h\/db\?sslmode=require&password=\*\*\*: the commands read no password from the parameter "password"; give it in the user info instead: postgres:\/\//u,
  ],
  [
    'inspect',
    ['--redis', 'redis://h/0?apikey=hunter2#hunter2'],
    /--redis redis:\/\/h\/0\?apikey=\*\*\*#\*\*\*: unsupported parameter "apikey"/u,
  ],
  ['inspect', ['--redis', 'redis://:%zz@h'], /the password in the URL is not valid percent-encoding/u],
  [
    'inspect',
    ['--cluster', '--redis', 'redis://:hunter2@h/3'],
    /a Redis Cluster has database 0 only; drop the \/3 from the URL/u,
  ],
  ['inspect', [...redis, '--table', 't'], /--table is a setting of --postgres, and this is --redis; drop it/u],
  ['inspect', [...postgres, '--cluster'], /--cluster is a setting of --redis, and this is --postgres; drop it/u],
  ['inspect', ['--postgres', 'postgres://app:hunter2@h'], /name the database in the path/u],
  [
    'inspect',
    ['--postgres', 'postgres://app:hunter2@h/db?sslmode=prefer'],
    /sslmode must be disable, require, verify-full; got "prefer"/u,
  ],
  ['inspect', [...postgres, '--table', 'bad name'], /--table must be a plain PostgreSQL identifier .* got "bad name"/u],
  [
    'inspect',
    [...postgres, '--schema', 'x', '--lease-table', 'a-b'],
    /--lease-table must be a plain PostgreSQL identifier/u,
  ],
  ['inspect', [...redis, '--version-key-prefix', 'v{'], /a prefix is refused: versionKeyPrefix "v\{" is invalid/u],
  ['inspect', [...redis, '--key-prefix', 'checkpoint-fencing:version:x'], /keyPrefix .* starts with versionKeyPrefix/u],
  [
    'inspect',
    [...redis, '--lease-key-prefix', 'l}'],
    /a prefix is refused: keyPrefix must be a string without "\{" or "\}"/u,
  ],
  ['inspect', [...redis, '--yes'], /--yes is not an option of inspect; drop it/u],
  [
    'inspect',
    [...redis, '--timeout-ms', '0'],
    /--timeout-ms must be a whole number of milliseconds from 1 to 3600000; got "0"/u,
  ],
  ['inspect', [...redis, '--frobnicate'], /Unknown option '--frobnicate'/u],
  ['inspect', [...redis, ''], /subscriptionId must not be empty/u],
  ['inspect', [...redis, 'a\uD800'], /well-formed/u],
  ...(['--redis', '--postgres'] as const).map((flag) => ['inspect', [flag, 'a', flag, 'b'], giveOnce(flag)] as const),
  ['inspect', [...postgres, '--postgres=postgres://u:hunter2@h/other'], giveOnce('--postgres')],
  ['inspect', [...redis, ...redis], giveOnce('--redis')],
  ['inspect', [...postgres, '--table', 't', '--table', 'u'], giveOnce('--table')],
  ['inspect', [...redis, '--timeout-ms', '5', '--timeout-ms', '6'], giveOnce('--timeout-ms')],
  ['repair', [...redis, 'orders'], /say which repair to make: --raise-token \(the only one there is\)/u],
  ['repair', [...redis, '--raise-token'], /name the subscriptions to repair: repair <id…>/u],
  ['repair', [...redis, '--raise-token', '--json', 'orders'], /--json is not an option of repair; drop it/u],
  ['inspect', [...redis, '--json', '--prometheus'], /give either --json or --prometheus, not both/u],
  [
    'repair',
    [...redis, '--raise-token', '--prometheus', 'orders'],
    /--prometheus is not an option of repair; drop it/u,
  ],
  ['reset', [...postgres], /name the subscriptions to reset: reset <id…>/u],
  [
    'inspect',
    [...redis, '--wait-for-standbys', 'false'],
    /--wait-for-standbys is a setting of --postgres, and this is --redis; drop it/u,
  ],
  ...['true', '0', 'one'].map(
    (value) =>
      [
        'inspect',
        [...postgres, '--wait-for-standbys', value],
        /--wait-for-standbys must be auto, false or a whole number of standbys, as the application's waitForStandbys; got "/u,
      ] as const,
  ),
  ['reset', [...postgres, '--raise-token', 'orders'], /--raise-token is not an option of reset; drop it/u],
  [
    'inspect',
    [...redis, '--wait-for-replicas', 'all'],
    /--wait-for-replicas must be auto, false or a whole number of replicas, as the application's waitForReplicas; got "all"/u,
  ],
  [
    'inspect',
    [...redis, '--sentinel', 'http://:hunter2@h:26379'],
    /--sentinel http:\/\/:\*\*\*@h:26379\/: the scheme must be redis:\/\/ or rediss:\/\//u,
  ],
  ['inspect', [...redis, '--sentinel', 'redis://h:26379/2'], /a Sentinel has no databases; drop the \/2/u],
  ['inspect', ['--cluster', ...redis, '--sentinel', 'redis://h:26379'], /a Redis Cluster has no Sentinel/u],
  ['inspect', [...postgres, '--sentinel', 'redis://h'], /--sentinel is a setting of --redis, and this is --postgres/u],
];

describe('operator command lines', () => {
  it.each(cases)('%s %j is refused in one line with exit 2', async (command, args, message) => {
    const { code, out, err } = await run(command, args);
    expect(code).toBe(2);
    expect(out).toBe('');
    expect(err).toMatch(
      new RegExp(`^checkpoint-fencing ${command}: [^\\n]+; see checkpoint-fencing ${command} --help\\.\\n$`, 'u'),
    );
    expect(err).toMatch(message);
    expect(err).not.toContain('hunter2');
  });

  it.each(['inspect', 'repair', 'reset'] as const)('%s --help prints its usage and exits 0', async (command) => {
    const { code, out, err } = await run(command, ['--help']);
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).toMatch(new RegExp(`^Usage: checkpoint-fencing ${command} `, 'u'));
    expect(out).toContain('--timeout-ms <n>');
  });

  it('takes a flag without a value given twice as given once', async () => {
    const { err } = await run('reset', [...postgres, '--yes', '--yes', 'orders', '--table', 'bad name']);
    expect(err).toMatch(/--table must be a plain PostgreSQL identifier/u);
  });
});
