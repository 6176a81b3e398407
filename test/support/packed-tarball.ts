import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { cp, mkdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { hashOfSources } from './source-hash.js';

const run = promisify(execFile);
const REPO = resolve(import.meta.dirname, '../..');
/**
 * Besides the folders tsconfig.build.json compiles: what `npm pack` reads or ships, and the test support the
 * benchmarks import. The pack sees nothing else, so an input missing here fails the pack instead of going stale.
 */
const PACK_INPUTS = ['package.json', 'tsconfig.base.json', 'tsconfig.build.json', 'README.md', 'doc', 'test/support'];
/** A pack takes a minute or two on a loaded machine; a lock older than this was left by a killed run. */
const STALE_LOCK_MS = 15 * 60 * 1000;

/** The tarball `npm pack` makes of this checkout, as a user gets it from the registry. */
export interface PackedTarball {
  /** Absolute path of the `.tgz`. */
  readonly file: string;
  /** Every path in the tarball, relative to the package root (`dist/runtime/index.cjs`). */
  readonly files: ReadonlySet<string>;
  /** The package.json that was packed. */
  readonly manifest: PackedManifest;
}

/** The fields of the packed package.json the package tests read. */
export interface PackedManifest {
  readonly name: string;
  readonly version: string;
  readonly main?: string;
  readonly bin?: Readonly<Record<string, string>>;
  readonly exports: Readonly<Record<string, unknown>>;
  readonly scripts: Readonly<Record<string, string>>;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly peerDependenciesMeta?: Readonly<Record<string, { readonly optional?: boolean }>>;
}

let packing: Promise<PackedTarball> | undefined;

/**
 * The packed tarball of this run: `npm pack` (its `prepack` build included) of a copy of the current sources, made
 * once per change of those sources in `.tmp/tarball-<hash>/` and shared by every test file and worker, which wait for
 * each other instead of packing twice. The pack runs in a copy so that its build never rewrites this checkout's dist/
 * under other tests.
 */
export function packedTarball(): Promise<PackedTarball> {
  packing ??= packOnce();
  return packing;
}

async function packOnce(): Promise<PackedTarball> {
  const inputs = [...PACK_INPUTS, ...compiledFolders()];
  const folder = join(REPO, '.tmp', `tarball-${hashOfSources(REPO, inputs)}`);
  const record = join(folder, 'pack.json');
  const lock = `${folder}.lock`;
  await mkdir(join(REPO, '.tmp'), { recursive: true });
  while (!existsSync(record)) {
    if (await takeLock(lock)) {
      try {
        if (!existsSync(record)) {
          await pack(inputs, folder);
        }
      } finally {
        await rm(lock, { recursive: true, force: true });
      }
    } else {
      await sleep(1_000);
    }
  }
  await removeStaleTarballs(folder);
  const stored = JSON.parse(await readFile(record, 'utf8')) as {
    file: string;
    files: string[];
    manifest: PackedManifest;
  };
  return { file: stored.file, files: new Set(stored.files), manifest: stored.manifest };
}

async function pack(inputs: readonly string[], folder: string): Promise<void> {
  const staging = `${folder}-staging`;
  await rm(staging, { recursive: true, force: true });
  const source = join(staging, 'source');
  await mkdir(source, { recursive: true });
  for (const input of inputs) {
    if (existsSync(join(REPO, input))) {
      await cp(join(REPO, input), join(source, input), { recursive: true });
    }
  }
  await symlink(join(REPO, 'node_modules'), join(source, 'node_modules'), 'dir');
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', staging], {
    cwd: source,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  if (packed === undefined) {
    throw new Error(`npm pack printed no manifest:\n${stdout}`);
  }
  const manifest = JSON.parse(await readFile(join(source, 'package.json'), 'utf8')) as PackedManifest;
  await rm(source, { recursive: true, force: true });
  await writeFile(
    join(staging, 'pack.json'),
    JSON.stringify({
      file: join(folder, packed.filename),
      files: packed.files.map((file) => file.path),
      manifest,
    }),
  );
  await rename(staging, folder);
}

/** The folders `tsc -p tsconfig.build.json` compiles: the build's inputs, shipped or not. */
function compiledFolders(): string[] {
  const config = JSON.parse(readFileSync(join(REPO, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
  return config.include;
}

async function takeLock(lock: string): Promise<boolean> {
  try {
    await mkdir(lock);
    return true;
  } catch {
    const age = await stat(lock).then(
      (stats) => Date.now() - stats.mtimeMs,
      () => 0,
    );
    if (age > STALE_LOCK_MS) {
      await rm(lock, { recursive: true, force: true });
    }
    return false;
  }
}

/** Tarballs of sources that have since changed, left by earlier runs; an hour old at least, so no running test uses one. */
async function removeStaleTarballs(keep: string): Promise<void> {
  const tmp = join(REPO, '.tmp');
  for (const entry of readdirSync(tmp)) {
    const path = join(tmp, entry);
    if (/^tarball-[0-9a-f]{16}$/.test(entry) && path !== keep && Date.now() - statSync(path).mtimeMs > 60 * 60 * 1000) {
      await rm(path, { recursive: true, force: true });
    }
  }
}
