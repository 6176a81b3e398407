import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const repository = resolve(import.meta.dirname, '../..');
const tsc = join(repository, 'node_modules/typescript/bin/tsc');

interface ExportTarget {
  readonly types?: string;
  readonly default?: string;
}

/**
 * Packs the package the way `npm publish` would, installs the tarball into an empty project and uses it from there.
 * The pack runs in a copy of the sources so that its build never rewrites this checkout's dist/ under other tests.
 */
describe('the npm pack tarball', () => {
  let workspace: string;
  let consumer: string;
  let packedFiles: Set<string>;
  let exportsMap: Record<string, ExportTarget | string>;

  beforeAll(async () => {
    workspace = await mkdtemp(join(tmpdir(), 'checkpoint-fencing-pack-'));
    const source = join(workspace, 'source');
    await mkdir(source);
    for (const entry of await readdir(repository)) {
      if (!['node_modules', 'dist', '.git', 'coverage', '.tmp'].includes(entry)) {
        await cp(join(repository, entry), join(source, entry), { recursive: true });
      }
    }
    await symlink(join(repository, 'node_modules'), join(source, 'node_modules'), 'dir');
    const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', workspace], {
      cwd: source,
      maxBuffer: 64 * 1024 * 1024,
    });
    const [manifest] = JSON.parse(stdout.slice(stdout.indexOf('['))) as {
      filename: string;
      files: { path: string }[];
    }[];
    if (manifest === undefined) {
      throw new Error(`npm pack printed no manifest:\n${stdout}`);
    }
    packedFiles = new Set(manifest.files.map((file) => file.path));
    exportsMap = (JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as { exports: typeof exportsMap })
      .exports;

    consumer = join(workspace, 'consumer');
    await mkdir(consumer);
    await writeFile(
      join(consumer, 'package.json'),
      JSON.stringify({ name: 'consumer', private: true, type: 'module' }),
    );
    await run(
      'npm',
      ['install', '--no-audit', '--no-fund', '--prefer-offline', '--omit=peer', join(workspace, manifest.filename)],
      {
        cwd: consumer,
      },
    );
  }, 300_000);

  afterAll(async () => {
    await rm(workspace, { recursive: true, force: true });
  });

  it('ships built JavaScript and typings for every export, and no TypeScript sources or tests', () => {
    for (const [subpath, target] of Object.entries(exportsMap)) {
      const files = typeof target === 'string' ? [target] : [target.types, target.default];
      for (const file of files) {
        expect(file, `exports["${subpath}"]`).toBeDefined();
        expect(
          packedFiles.has((file ?? '').replace(/^\.\//, '')),
          `${file ?? ''} of exports["${subpath}"] is in the tarball`,
        ).toBe(true);
      }
      if (typeof target !== 'string') {
        expect(target.types, `exports["${subpath}"] has types`).toMatch(/\.d\.ts$/);
      }
    }
    const sources = [...packedFiles].filter((file) => /\.ts$/.test(file) && !file.endsWith('.d.ts'));
    expect(sources).toEqual([]);
    expect([...packedFiles].filter((file) => file.startsWith('test/') || file.startsWith('dist/test/'))).toEqual([]);
  });

  it('imports the runtime by its package name and runs it', async () => {
    await writeFile(
      join(consumer, 'use.mjs'),
      [
        "import { InMemoryCheckpointStorage, CheckpointWriteCondition, CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';",
        'const storage = new InMemoryCheckpointStorage();',
        "await storage.save('orders', '2', CheckpointWriteCondition.notOlderThan(8));",
        "const refused = await storage.save('orders', '1', CheckpointWriteCondition.notOlderThan(7)).catch((e) => e);",
        "console.log(refused instanceof CheckpointWriteConditionNotFulfilledError, await storage.read('orders'));",
      ].join('\n'),
    );
    const { stdout } = await run('node', ['use.mjs'], { cwd: consumer });
    expect(stdout.trim()).toBe('true 2');
  });

  it('type-checks a consumer against the shipped typings, and rejects a misuse', async () => {
    await writeFile(
      join(consumer, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'nodenext',
          moduleResolution: 'nodenext',
          target: 'es2023',
          strict: true,
          noEmit: true,
          types: [],
          skipLibCheck: true,
        },
        include: ['*.ts'],
      }),
    );
    await writeFile(
      join(consumer, 'consumer.ts'),
      [
        "import { InMemoryCheckpointStorage, CheckpointWriteCondition, FencedCheckpointWriter, type CheckpointStorage } from 'checkpoint-fencing';",
        "import { describeCheckpointStorageConformance } from 'checkpoint-fencing/testing';",
        'const storage: CheckpointStorage = new InMemoryCheckpointStorage();',
        'const writer = new FencedCheckpointWriter(storage, { fencingToken: () => 3n });',
        "export const saved: Promise<string> = writer.save('orders', '1');",
        "export const version: Promise<bigint | undefined> = storage.writeVersion('orders');",
        'export const kit: typeof describeCheckpointStorageConformance = describeCheckpointStorageConformance;',
        "export const kind: 'notOlderThan' = CheckpointWriteCondition.notOlderThan(1).kind;",
      ].join('\n'),
    );
    await run('node', [tsc, '-p', '.'], { cwd: consumer });

    await writeFile(
      join(consumer, 'misuse.ts'),
      "import { InMemoryCheckpointStorage } from 'checkpoint-fencing';\nvoid new InMemoryCheckpointStorage().save('orders', 1, undefined);\n",
    );
    const failure = await run('node', [tsc, '-p', '.'], { cwd: consumer }).then(
      () => 'compiled',
      (error: unknown) => String((error as { stdout?: string }).stdout),
    );
    expect(failure).toMatch(/misuse\.ts\(2,53\): error TS2345/);
    await rm(join(consumer, 'misuse.ts'));
  });
});
