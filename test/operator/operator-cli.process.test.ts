import { createHash } from 'node:crypto';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_PACKAGE_NAME, PACKAGE_NAME } from '../../vocabulary/index.js';
import { installConsumer } from '../package/consumer-project.js';
import { freeLoopbackPort } from '../support/free-loopback-port.js';
import { temporaryDirectory } from '../support/temporary-directory.js';
import { builtBin, runCli } from './support/operator-cli.js';
import { startScriptedRedisNode, type RespReply, type ScriptedRedisNode } from './support/scripted-redis-node.js';

// The bin with no real server: the dispatcher, a few bad command lines, servers that refuse or never answer, a Cluster
// node that redirects elsewhere, and the CLI installed from what npm packs, in a project without ioredis or pg.

const nodes: ScriptedRedisNode[] = [];

// The first test file to need this build makes it (two tsc passes): minutes on a loaded two-core machine.
beforeAll(() => {
  builtBin();
}, 600_000);

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.close()));
});

async function scriptedNode(answer: (command: readonly string[]) => RespReply | undefined): Promise<ScriptedRedisNode> {
  const node = await startScriptedRedisNode(answer);
  nodes.push(node);
  return node;
}

/** Asserts the one-line failure every command ends with: exit 2, nothing on stdout, one line on stderr. */
function expectOneLineFailure(result: Awaited<ReturnType<typeof runCli>>, command: string, message: RegExp): void {
  expect(result.status).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(new RegExp(`^checkpoint-fencing ${command}: [^\\n]+\\.\\n$`, 'u'));
  expect(result.stderr).toMatch(message);
  expect(result.stderr).not.toContain('hunter2');
}

describe('the checkpoint-fencing bin', { timeout: 60_000 }, () => {
  it('names its three commands on --help, and when the command is missing or unknown', async () => {
    const help = await runCli(['--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^ {2}inspect .*\n {2}repair .*\n {2}reset /mu);
    expect(help.stdout).toContain('npx checkpoint-fencing-codemod upgrade');
    for (const [args, problem] of [
      [[], 'missing command'],
      [['downgrade'], 'unknown command "downgrade"'],
    ] as const) {
      const result = await runCli(args);
      expect(result.status).toBe(2);
      expect(result.stderr).toBe(
        `checkpoint-fencing: ${problem}; the commands are "inspect", "repair" and "reset"; run checkpoint-fencing --help.\n`,
      );
    }
    const upgrade = await runCli(['upgrade', '--dry-run']);
    expect({ status: upgrade.status, stdout: upgrade.stdout }).toEqual({
      status: 2,
      stdout: 'npx checkpoint-fencing-codemod upgrade\n',
    });
    const inspectHelp = await runCli(['inspect', '--help']);
    expect(inspectHelp.status).toBe(0);
    expect(inspectHelp.stdout).toMatch(/^Usage: checkpoint-fencing inspect \(--redis <url> \| --postgres <url>\)/u);
  });

  it('refuses bad arguments in one line with exit 2, before connecting anywhere', async () => {
    expectOneLineFailure(
      await runCli(['inspect', '--redis', 'redis://:hunter2@127.0.0.1:1/x']),
      'inspect',
      /--redis redis:\/\/:\*\*\*@127\.0\.0\.1:1\/x: the path must be a database number such as \/0/u,
    );
    expectOneLineFailure(
      await runCli(['repair', 'orders', '--postgres', 'postgres://u:hunter2@127.0.0.1:1/db']),
      'repair',
      /say which repair to make: --raise-token .*; see checkpoint-fencing repair --help\.$/mu,
    );
  });

  it('says so in one line when nothing listens at the address', async () => {
    const port = await freeLoopbackPort();
    expectOneLineFailure(
      await runCli(['inspect', '--redis', `redis://:hunter2@127.0.0.1:${port}`]),
      'inspect',
      new RegExp(`cannot connect to redis://:\\*\\*\\*@127\\.0\\.0\\.1:${port}: connection refused`, 'u'),
    );
    expectOneLineFailure(
      await runCli(['reset', 'orders', '--postgres', `postgres://u:hunter2@127.0.0.1:${port}/db`]),
      'reset',
      new RegExp(`cannot connect to postgres://u:\\*\\*\\*@127\\.0\\.0\\.1:${port}/db: connection refused`, 'u'),
    );
  });

  it('times out with a clear message when the server accepts the connection and never answers', async () => {
    const silent = await scriptedNode(() => undefined);
    for (const [command, store] of [
      ['inspect', ['--redis', `redis://:hunter2@127.0.0.1:${silent.port}`]],
      ['inspect', ['--postgres', `postgres://u:hunter2@127.0.0.1:${silent.port}/db`]],
    ] as const) {
      const result = await runCli([command, ...store, '--timeout-ms', '300']);
      expectOneLineFailure(
        result,
        command,
        /: no answer from \S+ within 300 ms.*give it longer with --timeout-ms\.$/mu,
      );
      expect(result.durationMs).toBeLessThan(30_000);
    }
  });

  it('times out when the server stops answering in the middle of a scan', async () => {
    const stalling = await scriptedNode(([name]) => {
      switch (name?.toLowerCase()) {
        case 'info':
          return '# Cluster\r\ncluster_enabled:0\r\n';
        case 'client':
        case 'select':
          return { simple: 'OK' };
        default:
          return undefined;
      }
    });
    const result = await runCli(['inspect', '--redis', `redis://127.0.0.1:${stalling.port}`, '--timeout-ms', '300']);
    expectOneLineFailure(result, 'inspect', /no answer from redis:\/\/127\.0\.0\.1:\d+ within 300 ms/u);
    expect(stalling.commands.map(([name]) => name?.toLowerCase())).toContain('scan');
  });

  it('loads the ioredis of the project it runs in, before the one beside the package', async () => {
    const node = await scriptedNode(([name]) => {
      switch (name?.toLowerCase()) {
        case 'info':
          return '# Cluster\r\ncluster_enabled:0\r\n';
        case 'scan':
          return ['0', []];
        default:
          return { simple: 'OK' };
      }
    });
    const project = temporaryDirectory('ioredis6-project');
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(
      resolve(import.meta.dirname, '../../node_modules/ioredis6'),
      join(project, 'node_modules/ioredis'),
      'dir',
    );
    for (const [cwd, version] of [
      [project, '6.0.0'],
      [resolve(import.meta.dirname, '../..'), '5.9.2'],
    ] as const) {
      const before = node.commands.length;
      const result = await runCli(['inspect', '--redis', `redis://127.0.0.1:${node.port}`], { cwd });
      expect(result.status).toBe(0);
      // ioredis names its own version to the server as it connects.
      expect(node.commands.slice(before).find((command) => command[2] === 'LIB-VER')?.[3]).toBe(version);
    }
  });

  it('on a Cluster, refuses to connect to a node the seed did not announce, even when redirected there', async () => {
    const elsewhere = await scriptedNode(() => ({ error: 'ERR this node must never be reached' }));
    const versionKey = `checkpoint-fencing:version:{orders}${createHash('sha256').update('orders').digest('hex')}`;
    const seed = await scriptedNode((command) => {
      const [name, argument] = command.map((part) => part.toLowerCase());
      if (name === 'info') {
        return '# Cluster\r\ncluster_enabled:1\r\n';
      }
      if (name === 'auth' || name === 'client' || name === 'select') {
        return { simple: 'OK' };
      }
      if (name === 'cluster' && argument === 'slots') {
        return [[0, 16_383, ['127.0.0.1', seed.port, 'seed-node-id']]];
      }
      if (name === 'cluster' && argument === 'info') {
        return 'cluster_state:ok\r\n';
      }
      if (name === 'scan') {
        return ['0', [versionKey]];
      }
      return { error: `MOVED 1234 127.0.0.1:${elsewhere.port}` };
    });
    const result = await runCli(['inspect', '--cluster', '--redis', `redis://:hunter2@127.0.0.1:${seed.port}`]);
    expectOneLineFailure(
      result,
      'inspect',
      new RegExp(
        `refused to connect to 127\\.0\\.0\\.1:${elsewhere.port}: the Cluster at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${seed.port} sent the command to a node its CLUSTER SLOTS did not list \\(127\\.0\\.0\\.1:${seed.port}\\)`,
        'u',
      ),
    );
    expect(elsewhere.connections).toBe(0);
  });

  describe('installed from what npm packs, in a project without the client packages', () => {
    let project: string;
    let bin: string;

    // The first test file to need the tarballs packs all four (four builds): minutes on a loaded two-core machine.
    beforeAll(async () => {
      project = (await installConsumer('operator-project', { packages: [PACKAGE_NAME, CLI_PACKAGE_NAME] })).directory;
      bin = join(project, 'node_modules', CLI_PACKAGE_NAME, 'dist/operator/cli.js');
    }, 900_000);

    it('names the package to install, in one line', async () => {
      expectOneLineFailure(
        await runCli(['inspect', '--redis', 'redis://:hunter2@127.0.0.1:1'], { cwd: project, bin }),
        'inspect',
        new RegExp(
          `^checkpoint-fencing inspect: --redis needs the ioredis package, which checkpoint-fencing-cli does not install \\(it is an optional peer dependency\\) and which is not installed in ${project}; install it: npm install ioredis\\.$`,
          'mu',
        ),
      );
      expectOneLineFailure(
        await runCli(['repair', 'orders', '--raise-token', '--postgres', 'postgres://u:hunter2@127.0.0.1:1/db'], {
          cwd: project,
          bin,
        }),
        'repair',
        /--postgres needs the pg package, .*; install it: npm install pg\.$/mu,
      );
    });

    it('refuses a client of a major version outside the peer range, and one without natMap functions for --cluster', async () => {
      const installClient = (version: string): void => {
        const directory = join(project, 'node_modules/ioredis');
        mkdirSync(directory, { recursive: true });
        writeFileSync(join(directory, 'package.json'), JSON.stringify({ name: 'ioredis', version, main: 'index.js' }));
        writeFileSync(join(directory, 'index.js'), 'module.exports = {};\n');
      };
      installClient('4.28.5');
      expectOneLineFailure(
        await runCli(['inspect', '--redis', 'redis://127.0.0.1:1'], { cwd: project, bin }),
        'inspect',
        /--redis needs ioredis 5 or 6, but \S+index\.js is ioredis 4\.28\.5; install a supported one: npm install ioredis@6\.$/mu,
      );
      installClient('5.4.1');
      expectOneLineFailure(
        await runCli(['inspect', '--cluster', '--redis', 'redis://127.0.0.1:1'], { cwd: project, bin }),
        'inspect',
        /--cluster needs ioredis 5\.5\.0 or later, whose natMap function keeps every connection on the nodes the seed announces, but \S+ is ioredis 5\.4\.1; install a newer one: npm install ioredis@6\.$/mu,
      );
    });
  });
});
