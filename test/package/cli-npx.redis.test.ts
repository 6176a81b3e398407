import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage, RedisLeaseStrategy } from '../../runtime/index.js';
import { CLI_PACKAGE_NAME, PACKAGE_NAME } from '../../vocabulary/index.js';
import type { InspectionJsonRow } from '../../operator/inspection-report.js';
import { builtBin, runCli } from '../operator/support/operator-cli.js';
import { packedTarball } from '../support/packed-tarball.js';
import { useSharedRedis } from '../support/redis/index.js';
import { temporaryDirectory } from '../support/temporary-directory.js';
import { installConsumer } from './consumer-project.js';

// The operator commands as doc/operations.md runs them: `npx checkpoint-fencing-cli inspect` fetches the package (here
// its tarball, with the runtime's, which a registry would give as its dependency) into npx's own cache and runs it in a
// project that never installed it, with the project's ioredis; and the runtime's own `checkpoint-fencing` bin, which
// points there, or hands over to the CLI where it is installed.

const run = promisify(execFile);
const shared = useSharedRedis();
const repository = resolve(import.meta.dirname, '../..');
let url: string;
let strategy: RedisLeaseStrategy;

/** A user's project with only the ioredis its application uses: no checkpoint-fencing package of any kind. */
async function projectWithIoredis(): Promise<string> {
  const project = temporaryDirectory('cli-npx-project');
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true }));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(join(repository, 'node_modules/ioredis'), join(project, 'node_modules/ioredis'), 'dir');
  return project;
}

/** Runs `npx …args` in `cwd`; resolves to its exit status and output, whatever the status. */
async function npx(args: readonly string[], cwd: string): Promise<{ status: number; stdout: string; stderr: string }> {
  // npm reads a `--help` after the command as its own when options precede it, so `--` ends npm's options.
  const command = args.findIndex((arg) => !arg.startsWith('--'));
  const npmArgs = ['--yes', '--prefer-offline', '--no-audit', '--no-fund', ...args.slice(0, command), '--'];
  return run('npx', [...npmArgs, ...args.slice(command)], { cwd }).then(
    ({ stdout, stderr }) => ({ status: 0, stdout, stderr }),
    (error: unknown) => {
      const { code, stdout, stderr } = error as { code?: number; stdout?: string; stderr?: string };
      return { status: code ?? -1, stdout: stdout ?? '', stderr: stderr ?? '' };
    },
  );
}

/** The rows with the lease's time to expiry, which moves between two runs, left out. */
function withoutExpiry(stdout: string): unknown[] {
  return (JSON.parse(stdout) as InspectionJsonRow[]).map(({ expiresInMs, ...row }) => ({
    ...row,
    expires: expiresInMs === null ? null : 'set',
  }));
}

beforeAll(async () => {
  builtBin();
  // The first test file to need the tarballs packs all four (four builds): minutes on a loaded two-core machine.
  packedTarball(CLI_PACKAGE_NAME);
  url = `redis://${shared.host}:${shared.port}/${shared.database}`;
  strategy = new RedisLeaseStrategy(shared.connect(), { leaseTimeMs: 120_000, onError: () => undefined });
  await strategy.register('orders', 'node-a');
  await RedisCheckpointStorage.forStandalone(shared.connect()).save(
    'orders',
    'cp-7',
    CheckpointWriteCondition.notOlderThan(strategy.fencingToken('orders') ?? -1n),
  );
}, 900_000);

afterAll(async () => {
  await strategy.shutdown();
});

describe('checkpoint-fencing-cli run with npx', { timeout: 300_000 }, () => {
  it('inspects as the bin did, in a project that never installed it', async () => {
    const project = await projectWithIoredis();
    const packages = [PACKAGE_NAME, CLI_PACKAGE_NAME].map((name) => `--package=${packedTarball(name).file}`);
    const [viaNpx, direct] = await Promise.all([
      npx([...packages, CLI_PACKAGE_NAME, 'inspect', '--redis', url, '--json'], project),
      runCli(['inspect', '--redis', url, '--json']),
    ]);
    expect(viaNpx.stderr).toBe('');
    expect(viaNpx.status).toBe(0);
    expect(withoutExpiry(viaNpx.stdout)).toEqual(withoutExpiry(direct.stdout));
    expect(withoutExpiry(viaNpx.stdout)).toEqual([
      expect.objectContaining({ id: 'orders', checkpoint: 'cp-7', storedVersion: '0', flags: [] }),
    ]);
    expect(existsSync(join(project, 'node_modules', CLI_PACKAGE_NAME))).toBe(false);
    expect(existsSync(join(project, 'node_modules', PACKAGE_NAME))).toBe(false);
  });
});

describe("the runtime's checkpoint-fencing bin", { timeout: 300_000 }, () => {
  it('prints the npx command that runs a moved command, with the arguments and no password, and exits 2', async () => {
    const { directory } = await installConsumer('runtime-bin');
    const inspect = await npx(
      ['checkpoint-fencing', 'inspect', '--redis', 'redis://:hunter2@db:6379/0', 'a b'],
      directory,
    );
    expect(inspect).toEqual({
      status: 2,
      stdout: `npx checkpoint-fencing-cli inspect --redis 'redis://:***@db:6379/0' 'a b'\n`,
      stderr: 'checkpoint-fencing: inspect is in the checkpoint-fencing-cli package; run it with npx:\n',
    });
    expect(await npx(['checkpoint-fencing', 'upgrade', '--dry-run'], directory)).toEqual({
      status: 2,
      stdout: 'npx checkpoint-fencing-codemod upgrade --dry-run\n',
      stderr: 'checkpoint-fencing: upgrade is in the checkpoint-fencing-codemod package; run it with npx:\n',
    });
    // `--` ends npx's own options, which come first here: after them, npm 11 takes a command's `--help` for its own.
    expect(await npx(['checkpoint-fencing', '--help'], directory)).toEqual({
      status: 2,
      stdout: '',
      stderr:
        'checkpoint-fencing: the commands are in their own packages now: inspect, repair and reset in checkpoint-fencing-cli ' +
        '(npx checkpoint-fencing-cli --help), upgrade in checkpoint-fencing-codemod (npx checkpoint-fencing-codemod --help).\n',
    });
  });

  it('hands every command, its help and version to checkpoint-fencing-cli where both are installed, whichever bin npm linked', async () => {
    const { directory } = await installConsumer('runtime-and-cli', { packages: [PACKAGE_NAME, CLI_PACKAGE_NAME] });
    symlinkSync(join(repository, 'node_modules/ioredis'), join(directory, 'node_modules/ioredis'), 'dir');
    const runtimeBin = join(directory, 'node_modules', PACKAGE_NAME, 'dist/esm/runtime/moved-commands-bin.mjs');
    const viaRuntimeBin = await run(process.execPath, [runtimeBin, 'inspect', '--redis', url, '--json'], {
      cwd: directory,
    });
    const direct = await runCli(['inspect', '--redis', url, '--json']);
    expect(withoutExpiry(viaRuntimeBin.stdout)).toEqual(withoutExpiry(direct.stdout));
    const viaNpx = await npx(['checkpoint-fencing', 'inspect', '--redis', url, '--json'], directory);
    expect(viaNpx.status).toBe(0);
    expect(withoutExpiry(viaNpx.stdout)).toEqual(withoutExpiry(direct.stdout));
    for (const option of ['--help', '--version']) {
      const { stdout } = await run(process.execPath, [runtimeBin, option], { cwd: directory });
      expect(stdout).toBe((await runCli([option])).stdout);
    }
  });
});
