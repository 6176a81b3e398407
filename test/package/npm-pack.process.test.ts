import { execFile, spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DUAL_ANCHOR_BASE_STEP_NAMES,
  DUAL_ANCHOR_EXPORTS,
  DUAL_ANCHOR_RECORD_FIELD_NAMES,
  DUAL_ANCHOR_STORE_MEMBER_NAMES,
  CLI_PACKAGE_NAME,
  CODEMOD_PACKAGE_NAME,
  ESLINT_PLUGIN_PACKAGE_NAME,
  PACKAGE_NAME,
  RUNTIME_TYPE_EXPORTS,
  RUNTIME_VALUE_EXPORTS,
  STORAGE_MEMBER_NAMES,
} from '../../vocabulary/index.js';
import { packedTarball, packedTarballs, type PackedManifest } from '../support/packed-tarball.js';
import { temporaryDirectory } from '../support/temporary-directory.js';
import { declaredExports } from './declared-exports.js';
import { typeCheckProjects } from './type-check-projects.js';

const run = promisify(execFile);
const repository = resolve(import.meta.dirname, '../..');

/** What a consumer of the conformance kit has installed besides this package: vitest and TypeScript. */
const LINKED_PEERS = ['typescript', 'vitest'];

/**
 * The most the runtime's code (its dist/) may take unpacked (issue 34): it is a production dependency of every service
 * that uses it. Its documents (README, LICENSE) count apart.
 */
const MAX_DIST_BYTES = 1.2 * 1024 * 1024;
/** What the package ships beside its dist/: its manifest and its documents. */
const OUTSIDE_DIST = /^(?:package\.json|README\.md|LICENSE(?:\.md)?)$/u;

/**
 * Loads the package both ways in one process and compares: every export of every entry, a refusal thrown by the copy
 * `require` gave checked against the class `import` gave and the other way round, and a write condition made by one
 * copy recognised by the other's check.
 */
const sameImplementationScript = `
import { createRequire } from 'node:module';
import * as esm from 'checkpoint-fencing';
const cjs = createRequire(import.meta.url)('checkpoint-fencing');
const entries = ['checkpoint-fencing', 'checkpoint-fencing/dual-anchor', 'checkpoint-fencing/store-layout'];
const differing = [];
let exports = 0;
for (const entry of entries) {
  const [imported, required] = [await import(entry), createRequire(import.meta.url)(entry)];
  const names = [...new Set([...Object.keys(imported), ...Object.keys(required)])];
  differing.push(...names.filter((name) => imported[name] !== required[name]).map((name) => entry + ' ' + name));
  exports += names.length;
}
const refuse = async (copy) => {
  const storage = new copy.InMemoryCheckpointStorage();
  await storage.save('orders', '7', copy.CheckpointWriteCondition.notOlderThan(3n));
  return storage.save('orders', '6', copy.CheckpointWriteCondition.notOlderThan(2n)).catch((error) => error);
};
console.log(JSON.stringify({
  differing,
  exports,
  refusalFromRequireIsImportsClass: (await refuse(cjs)) instanceof esm.CheckpointWriteConditionNotFulfilledError,
  refusalFromImportIsRequiresClass: (await refuse(esm)) instanceof cjs.CheckpointWriteConditionNotFulfilledError,
  conditionFromRequireIsCondition: esm.isCheckpointWriteCondition(cjs.CheckpointWriteCondition.notOlderThan(1n)),
}));
`;

type ExportTarget = string | { readonly [condition: string]: ExportTarget };

/** Every file an export condition tree points at. */
function targets(target: ExportTarget): string[] {
  return typeof target === 'string' ? [target] : Object.values(target).flatMap(targets);
}

/**
 * What a consumer writes in every setup: the runtime, its dual-anchor and store-layout entries and the conformance
 * kit, each with its types, and a line of output proving each one loaded and works. The kit is an ES module only
 * (doc/adr/0707): ESM imports it, CommonJS with `import()`.
 */
const consumerSource = (type: 'module' | 'commonjs'): string => `import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  InMemoryCheckpointStorage,
  type CheckpointStorage,
} from 'checkpoint-fencing';
import { InMemoryDualAnchorCheckpointStore, type DualAnchorCheckpointStore } from 'checkpoint-fencing/dual-anchor';
import { redisLeaseKeys } from 'checkpoint-fencing/store-layout';
${type === 'module' ? "import { describeCheckpointStorageConformance } from 'checkpoint-fencing/testing';" : ''}

const storage: CheckpointStorage = new InMemoryCheckpointStorage();
const anchors: DualAnchorCheckpointStore = new InMemoryDualAnchorCheckpointStore();

async function main(): Promise<void> {
  ${type === 'module' ? '' : "const { describeCheckpointStorageConformance } = await import('checkpoint-fencing/testing');"}
  await anchors.saveHeartbeat('orders', new Date(0));
  await storage.save('orders', '7', CheckpointWriteCondition.notOlderThan(3n));
  const version: bigint | undefined = await storage.writeVersion('orders');
  const refused = await storage.save('orders', '6', CheckpointWriteCondition.notOlderThan(2n)).catch((error: unknown) => error);
  console.log(
    JSON.stringify({
      read: await storage.read('orders'),
      version: String(version),
      refused: refused instanceof CheckpointWriteConditionNotFulfilledError ? refused.name : 'accepted',
      heartbeat: (await anchors.findByStreamName('orders'))?.lastHeartbeatTimestamp?.toISOString(),
      leaseKey: redisLeaseKeys('', 'orders').lease,
      kit: typeof describeCheckpointStorageConformance,
    }),
  );
}
void main();
`;

/** The setups the package must work in: module format, `module`, `moduleResolution`. */
const setups = [
  { name: 'ESM, nodenext', type: 'module', module: 'nodenext', moduleResolution: 'nodenext' },
  { name: 'CommonJS, node16', type: 'commonjs', module: 'node16', moduleResolution: 'node16' },
  { name: 'CommonJS, nodenext', type: 'commonjs', module: 'nodenext', moduleResolution: 'nodenext' },
  {
    name: 'CommonJS, node10 ("moduleResolution": "node")',
    type: 'commonjs',
    module: 'commonjs',
    moduleResolution: 'node',
  },
  { name: 'ESM, bundler', type: 'module', module: 'esnext', moduleResolution: 'bundler' },
] as const;

type Setup = (typeof setups)[number];

/** Where the consumer project of `setup` lives under `consumers`. */
function setupFolder(consumers: string, setup: Setup): string {
  return join(consumers, setup.name.replace(/\W+/g, '-'));
}

/** Writes the consumer project of `setup`: its module format, its compiler options, the consumer source. */
async function writeSetupProject(consumers: string, setup: Setup): Promise<string> {
  const project = setupFolder(consumers, setup);
  await mkdir(project, { recursive: true });
  await writeFile(join(project, 'package.json'), JSON.stringify({ type: setup.type }));
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        module: setup.module,
        moduleResolution: setup.moduleResolution,
        target: 'es2022',
        strict: true,
        outDir: 'out',
        types: [],
        // Our declarations are checked too, and so is every library declaration they reach.
        skipLibCheck: false,
        // TypeScript 6 deprecates "node" (node10) resolution; projects on TypeScript 5 do not need this.
        ignoreDeprecations: '6.0',
      },
      files: ['consumer.ts'],
    }),
  );
  await writeFile(join(project, 'consumer.ts'), consumerSource(setup.type));
  return project;
}

/** Writes a project that passes a number where the typings want a string: tsc must refuse it. */
async function writeMisuseProject(consumers: string): Promise<string> {
  const project = join(consumers, 'misuse');
  await mkdir(project, { recursive: true });
  await writeFile(join(project, 'package.json'), JSON.stringify({ type: 'module' }));
  await writeFile(
    join(project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { module: 'nodenext', strict: true, noEmit: true, types: [] },
      files: ['misuse.ts'],
    }),
  );
  await writeFile(
    join(project, 'misuse.ts'),
    "import { InMemoryCheckpointStorage } from 'checkpoint-fencing';\nvoid new InMemoryCheckpointStorage().save('orders', 1, undefined);\n",
  );
  return project;
}

/**
 * Installs the tarball `npm publish` would publish into an empty project and uses it from there, in every common
 * TypeScript setup.
 */
// Each setup type-checks the package's declarations and every library declaration they reach (skipLibCheck off):
// tens of seconds on a loaded two-core machine, though one solution build parses the shared declarations once.
describe('the npm pack tarball', { timeout: 240_000 }, () => {
  let consumers: string;
  let packedFiles: ReadonlySet<string>;
  let manifest: PackedManifest;
  let installOutput: string;
  /** The top-level node_modules entries the tarball's install made, before anything was linked. */
  let installed: string[];
  /** What type-checking each consumer project reported, by folder; empty for a project that compiles cleanly. */
  let typeChecks: Map<string, string>;

  beforeAll(async () => {
    const tarball = packedTarball();
    packedFiles = tarball.files;
    manifest = tarball.manifest;
    consumers = temporaryDirectory('checkpoint-fencing-consumers');
    await writeFile(join(consumers, 'package.json'), JSON.stringify({ name: 'consumers', private: true }));
    const install = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball.file], {
      cwd: consumers,
    });
    installOutput = `${install.stdout}${install.stderr}`;
    installed = await readdir(join(consumers, 'node_modules'));
    // What a consumer of the conformance kit has installed: TypeScript and vitest (the kit's runner). Linked from
    // this checkout.
    for (const peer of LINKED_PEERS) {
      await mkdir(dirname(join(consumers, 'node_modules', peer)), { recursive: true });
      await symlink(join(repository, 'node_modules', peer), join(consumers, 'node_modules', peer), 'dir');
    }
    const projects = [
      ...(await Promise.all(setups.map((setup) => writeSetupProject(consumers, setup)))),
      await writeMisuseProject(consumers),
    ];
    typeChecks = typeCheckProjects(projects, consumers);
    // The first test file to need the tarballs packs all four (four builds): minutes on a loaded two-core machine.
  }, 900_000);

  it('ships built JavaScript and typings for every export, and no TypeScript sources or tests', () => {
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      for (const file of targets(target as ExportTarget)) {
        expect(packedFiles.has(file.replace(/^\.\//, '')), `${file} of exports["${subpath}"] is in the tarball`).toBe(
          true,
        );
      }
    }
    const sources = [...packedFiles].filter((file) => /\.ts$/.test(file) && !/\.d\.c?ts$/.test(file));
    expect(sources).toEqual([]);
    expect([...packedFiles].filter((file) => file.startsWith('test/') || file.startsWith('dist/test/'))).toEqual([]);
  });

  it('ships no source map and no map comment: its JavaScript is the readable tsc output of its sources', async () => {
    const root = join(consumers, 'node_modules', PACKAGE_NAME);
    const commented: string[] = [];
    for (const file of [...packedFiles].filter((path) => /\.(?:[cm]?js|d\.[cm]?ts)$/.test(path))) {
      if ((await readFile(join(root, file), 'utf8')).includes('//# sourceMappingURL=')) {
        commented.push(file);
      }
    }
    expect(commented).toEqual([]);
    expect([...packedFiles].filter((file) => file.endsWith('.map'))).toEqual([]);
  });

  it('declares no dependencies: a plain npm install of it adds exactly one package', () => {
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(installed.filter((entry) => !entry.startsWith('.'))).toEqual([PACKAGE_NAME]);
    expect(Object.keys(manifest.peerDependencies ?? {}).sort()).toEqual([
      '@opentelemetry/api',
      'ioredis',
      'pg',
      'vitest',
    ]);
    expect(
      Object.values(manifest.peerDependenciesMeta ?? {}).every((peer) => peer.optional === true),
      'every peer is optional',
    ).toBe(true);
  });

  it('takes at most 1.2 MB unpacked in dist/, with its manifest and documents beside it counted apart', async () => {
    const root = join(consumers, 'node_modules', PACKAGE_NAME);
    const sizes = await Promise.all(
      [...packedFiles].map(async (file) => ({ file, size: (await stat(join(root, file))).size })),
    );
    const sum = (files: { size: number }[]): number => files.reduce((total, { size }) => total + size, 0);
    const dist = sum(sizes.filter(({ file }) => file.startsWith('dist/')));
    const beside = sizes.filter(({ file }) => !file.startsWith('dist/'));
    expect(beside.map(({ file }) => file).filter((file) => !OUTSIDE_DIST.test(file))).toEqual([]);
    expect(dist, `dist/ ${dist} bytes, documents and manifest ${sum(beside)} bytes`).toBeLessThanOrEqual(
      MAX_DIST_BYTES,
    );
  });

  it('loads one implementation from import and require: every export, errors included, is the same object', () => {
    const { stdout } = spawnSync(process.execPath, ['--input-type=module', '-e', sameImplementationScript], {
      cwd: consumers,
      encoding: 'utf8',
    });
    expect(JSON.parse(stdout)).toEqual({
      differing: [],
      exports: expect.any(Number) as number,
      refusalFromRequireIsImportsClass: true,
      refusalFromImportIsRequiresClass: true,
      conditionFromRequireIsCondition: true,
    });
  });

  it('installs without a lifecycle script for users to approve', () => {
    expect(manifest.scripts['prepare']).toBeUndefined();
    expect(installOutput).not.toMatch(/install-scripts|prepare/i);
  });

  it('exports from the built declarations every runtime name and member the recipes and rules use, each from its entry', () => {
    const root = declaredExports(join(consumers, 'node_modules', PACKAGE_NAME, 'dist/esm/runtime/index.d.mts'));
    const dualAnchor = declaredExports(
      join(consumers, 'node_modules', PACKAGE_NAME, 'dist/esm/runtime/dual-anchor-entry.d.mts'),
    );
    const ofDualAnchor = new Set<string>(DUAL_ANCHOR_EXPORTS);
    const missing = [...RUNTIME_VALUE_EXPORTS, ...RUNTIME_TYPE_EXPORTS].filter(
      (name) => !(ofDualAnchor.has(name) ? dualAnchor : root).exports.has(name),
    );
    expect(missing).toEqual([]);
    expect(DUAL_ANCHOR_EXPORTS.filter((name) => root.exports.has(name))).toEqual([]);
    expect([...STORAGE_MEMBER_NAMES].sort()).toEqual([...(root.members.get('CheckpointStorage') ?? [])].sort());
    const members = (name: string): string[] => [...(dualAnchor.members.get(name) ?? [])].sort();
    expect([...DUAL_ANCHOR_STORE_MEMBER_NAMES].sort()).toEqual(members('DualAnchorCheckpointStore'));
    expect([...DUAL_ANCHOR_RECORD_FIELD_NAMES].sort()).toEqual(members('DualAnchorCheckpoint'));
    // The base class's members are the interface's plus its protected steps.
    expect(members('DualAnchorCheckpointStoreBase')).toEqual(
      [...DUAL_ANCHOR_STORE_MEMBER_NAMES, ...DUAL_ANCHOR_BASE_STEP_NAMES].sort(),
    );
  });

  for (const setup of setups) {
    it(`imports the runtime, ./dual-anchor, ./store-layout and ./testing with types, and runs: ${setup.name}`, async () => {
      const project = setupFolder(consumers, setup);
      expect(typeChecks.get(project), `type errors in the ${setup.name} consumer`).toBe('');
      const { stdout } = await run(process.execPath, [join(project, 'out/consumer.js')]);
      expect(JSON.parse(stdout)).toEqual({
        read: '7',
        version: '3',
        refused: 'CheckpointWriteConditionNotFulfilledError',
        heartbeat: '1970-01-01T00:00:00.000Z',
        leaseKey: '{orders}:lease',
        kit: 'function',
      });
    });
  }

  it('rejects a misuse against the shipped typings', () => {
    expect(typeChecks.get(join(consumers, 'misuse'))).toMatch(/misuse\.ts\(2,53\): error TS2345/);
  });
});

describe('npm pack --workspaces', { timeout: 900_000 }, () => {
  it('makes four tarballs, one a package', () => {
    expect([...packedTarballs().keys()].sort()).toEqual(
      [PACKAGE_NAME, CLI_PACKAGE_NAME, CODEMOD_PACKAGE_NAME, ESLINT_PLUGIN_PACKAGE_NAME].sort(),
    );
  });

  it('ships the operator commands in checkpoint-fencing-cli alone, which depends on the runtime of its version', () => {
    const runtime = packedTarball(PACKAGE_NAME);
    expect([...runtime.files].filter((file) => file.includes('operator'))).toEqual([]);
    expect(runtime.manifest.bin).toEqual({ [PACKAGE_NAME]: 'dist/esm/runtime/moved-commands-bin.mjs' });
    const cli = packedTarball(CLI_PACKAGE_NAME);
    expect(cli.manifest.bin).toEqual({
      [PACKAGE_NAME]: 'dist/operator/cli.js',
      [CLI_PACKAGE_NAME]: 'dist/operator/cli.js',
    });
    expect(cli.manifest.dependencies).toEqual({ [PACKAGE_NAME]: `^${runtime.manifest.version}` });
    // Its compiled code and the vocabulary compiled in beside it; no declarations (it is a bin), no runtime copy.
    expect(
      [...cli.files].filter(
        (file) => !/^(?:dist\/(?:operator|vocabulary)\/[\w/-]+\.js|package\.json|README\.md|LICENSE)$/u.test(file),
      ),
    ).toEqual([]);
    expect(cli.files.has('dist/operator/cli.js')).toBe(true);
  });
});
