import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { withFileLock } from './file-lock.js';
import { hashOfSources } from './source-hash.js';

const REPO = resolve(import.meta.dirname, '../..');
/**
 * Besides the folders tsconfig.build.json compiles: what `npm pack` reads or ships, and the test support the
 * benchmarks import. The pack sees nothing else, so an input missing here fails the pack instead of going stale.
 */
const PACK_INPUTS = ['package.json', 'tsconfig.base.json', 'tsconfig.build.json', 'README.md', 'doc', 'test/support'];

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

let packed: PackedTarball | undefined;

/**
 * The packed tarball of this run: `npm pack` (its `prepack` build included) of a copy of the current sources, made
 * once per change of those sources in `.tmp/tarball-<hash>/` and shared by every test file and worker. The pack runs
 * in a copy so that its build never rewrites this checkout's dist/ under other tests.
 */
export function packedTarball(): PackedTarball {
  packed ??= packOnce();
  return packed;
}

function packOnce(): PackedTarball {
  const inputs = [...PACK_INPUTS, ...compiledFolders()];
  const folder = join(REPO, '.tmp', `tarball-${hashOfSources(REPO, inputs)}`);
  const record = join(folder, 'pack.json');
  if (!existsSync(record)) {
    mkdirSync(join(REPO, '.tmp'), { recursive: true });
    // Test files that start at once would each pack the same sources: one packs, the others wait for its tarball.
    withFileLock(`${folder}.lock`, () => {
      if (!existsSync(record)) {
        pack(inputs, folder);
      }
    });
  }
  removeStaleTarballs(folder);
  const stored = JSON.parse(readFileSync(record, 'utf8')) as {
    file: string;
    files: string[];
    manifest: PackedManifest;
  };
  return { file: stored.file, files: new Set(stored.files), manifest: stored.manifest };
}

function pack(inputs: readonly string[], folder: string): void {
  const staging = `${folder}-staging`;
  rmSync(staging, { recursive: true, force: true });
  const source = join(staging, 'source');
  mkdirSync(source, { recursive: true });
  for (const input of inputs) {
    if (existsSync(join(REPO, input))) {
      cpSync(join(REPO, input), join(source, input), { recursive: true });
    }
  }
  symlinkSync(join(REPO, 'node_modules'), join(source, 'node_modules'), 'dir');
  const stdout = execFileSync('npm', ['pack', '--json', '--pack-destination', staging], {
    cwd: source,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const [tarball] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  if (tarball === undefined) {
    throw new Error(`npm pack printed no manifest:\n${stdout}`);
  }
  const manifest = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as PackedManifest;
  rmSync(source, { recursive: true, force: true });
  writeFileSync(
    join(staging, 'pack.json'),
    JSON.stringify({
      file: join(folder, tarball.filename),
      files: tarball.files.map((file) => file.path),
      manifest,
    }),
  );
  renameSync(staging, folder);
}

/** The folders `tsc -p tsconfig.build.json` compiles: the build's inputs, shipped or not. */
function compiledFolders(): string[] {
  const config = JSON.parse(readFileSync(join(REPO, 'tsconfig.build.json'), 'utf8')) as { include: string[] };
  return config.include;
}

/** Tarballs of sources that have since changed, left by earlier runs; an hour old at least, so no running test uses one. */
function removeStaleTarballs(keep: string): void {
  const tmp = join(REPO, '.tmp');
  for (const entry of readdirSync(tmp)) {
    const path = join(tmp, entry);
    if (/^tarball-[0-9a-f]{16}$/.test(entry) && path !== keep && Date.now() - statSync(path).mtimeMs > 60 * 60 * 1000) {
      rmSync(path, { recursive: true, force: true });
    }
  }
}
